/**
 * `gym eval prepare` of the multiple-choice and judge benchmarks added for issue 14 (supergpqa,
 * mmlu-redux, simpleqa, hle, financebench, secque) over the local Hub fixture: each writes
 * exactly the lines upstream's prepare.py writes for the same source rows (Python facts in
 * test/fixtures/benchmarks/judge-files.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";
import { JUDGE_BENCH_JSONL, JUDGE_BENCH_LINES } from "../fixtures/benchmarks/judge-files.ts";
import { startSourceServer, TOKEN, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

describe("gym eval prepare: judge and multiple-choice benchmarks", () => {
  test("each writes upstream's lines for the fixture rows", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "out");
    const names = Object.keys(JUDGE_BENCH_JSONL);
    const r = await runGym(["eval", "prepare", ...names.flatMap((n) => ["--benchmark", n]), "--output-dir", out, `+hf_token=${TOKEN}`, `+benchmark_mirror_url=${srv.url}`], {
      cwd: dir.path,
      env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url },
    });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    for (const n of names) {
      const got = readFileSync(join(out, JUDGE_BENCH_JSONL[n]!), "utf8").trimEnd().split("\n");
      expect([n, got]).toEqual([n, JUDGE_BENCH_LINES[n]!]);
    }
    // hle is gated: its parquet was fetched with the token.
    expect(srv.seen.filter((s) => s.path.includes("cais/hle")).every((s) => s.auth === `Bearer ${TOKEN}`)).toBe(true);
  }, 120_000);

  test("mmlu_prox refuses a lang_libs.py whose sha256 is not upstream's pin", async () => {
    await using dir = await tempDir();
    const path = "/raw.githubusercontent.com/EleutherAI/lm-evaluation-harness/f4d4b3de3ee6741a7151a9fe74945ee515262f4c/lm_eval/tasks/mmlu_prox/lang_libs.py";
    const real = srv.files.get(path)!;
    srv.files.set(path, new TextEncoder().encode('LANG_LIBS = {}\nLANG_SUBJECTS = {}\n'));
    try {
      const out = join(dir.path, "out");
      const r = await runGym(["eval", "prepare", "--benchmark", "mmlu_prox", "--output-dir", out, `+benchmark_mirror_url=${srv.url}`], {
        cwd: dir.path,
        env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url },
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("lang_libs.py checksum mismatch");
      expect(existsSync(join(out, JUDGE_BENCH_JSONL.mmlu_prox!))).toBe(false);
    } finally {
      srv.files.set(path, real);
    }
  }, 60_000);

  test("gym list benchmarks names their servers as built in", async () => {
    await using dir = await tempDir();
    const r = await runGym(["list", "benchmarks"], { cwd: dir.path });
    expect(r.code).toBe(0);
    for (const n of Object.keys(JUDGE_BENCH_JSONL)) {
      const line = r.stdout.split("\n").find((l) => l.trimStart().startsWith(`${n} `));
      expect([n, line]).not.toEqual([n, undefined]);
      expect(line).not.toContain("not built in");
    }
  }, 60_000);
});
