/**
 * `gym eval prepare` of global-piqa (its language list from the Hub's dataset info), longcodebench
 * (a zip of JSON files), longmemeval, aalcr (documents under CP437-mojibake names, undecodable
 * bytes dropped) and hle's vision variant over the local Hub fixture: each writes exactly the lines
 * upstream's prepare.py writes for the same bytes (test/fixtures/benchmarks/long-mcq-files.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";
import { LONG_MCQ_JSONL, LONG_MCQ_LINES, PIQA_CONFIGS } from "../fixtures/benchmarks/long-mcq-files.ts";
import { startSourceServer, TOKEN, type SourceServer } from "../fixtures/benchmarks/server.ts";
import { datasetsWalkOrder } from "../../src/benchmarks/longcodebench.ts";
import { dirtyFilename } from "../../src/benchmarks/aalcr.ts";
import { decodeUtf8Ignore } from "../../src/util/py-utf8-ignore.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

const NAMES = Object.keys(LONG_MCQ_JSONL);

async function prepare(dir: string, extra: string[] = []) {
  return runGym(["eval", "prepare", ...NAMES.flatMap((n) => ["--benchmark", n]), `+hf_token=${TOKEN}`, `+benchmark_mirror_url=${srv.url}`, ...extra], {
    cwd: dir,
    env: { XDG_CACHE_HOME: join(dir, "cache"), HF_ENDPOINT: srv.url },
  });
}

describe("gym eval prepare: global-piqa, longcodebench, longmemeval, aalcr, hle vision", () => {
  test("each writes upstream's lines for the fixture sources", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "out");
    const r = await prepare(dir.path, ["--output-dir", out]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    for (const n of NAMES) {
      const got = readFileSync(join(out, LONG_MCQ_JSONL[n]!), "utf8").trimEnd().split("\n");
      expect([n, got]).toEqual([n, LONG_MCQ_LINES[n]!]);
    }
    // global-piqa asked the Hub for the dataset's configs, then each config's test parquet, in the card's order.
    const piqa = srv.seen.filter((s) => s.path.startsWith("/api/datasets/mrlbenchmarks/global-piqa-nonparallel")).map((s) => s.path);
    const base = "/api/datasets/mrlbenchmarks/global-piqa-nonparallel";
    expect(piqa).toEqual([base, ...PIQA_CONFIGS.flatMap((c) => [`${base}/parquet/${c}/test`, `${base}/parquet/${c}/test/0.parquet`])]);
  }, 120_000);

  test("global-piqa prepares the same lines offline from the --data-dir layout (configs.json + <config>/test/*.parquet)", async () => {
    await using dir = await tempDir();
    const first = join(dir.path, "a");
    expect((await prepare(dir.path, ["--output-dir", first])).code).toBe(0);
    // Lay the global-piqa sources out as --data-dir expects and prepare offline.
    const data = join(dir.path, "data", "global-piqa");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "configs.json"), JSON.stringify(PIQA_CONFIGS));
    for (const c of PIQA_CONFIGS) {
      mkdirSync(join(data, c, "test"), { recursive: true });
      writeFileSync(join(data, c, "test", "0.parquet"), srv.files.get(`/api/datasets/mrlbenchmarks/global-piqa-nonparallel/parquet/${c}/test/0.parquet`)!);
    }
    const out = join(dir.path, "b");
    const before = srv.seen.length;
    const r = await runGym(["eval", "prepare", "--benchmark", "global-piqa", "--data-dir", join(dir.path, "data"), "--output-dir", out], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache") } });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    expect(srv.seen.length).toBe(before);
    expect(readFileSync(join(out, LONG_MCQ_JSONL["global-piqa"]!), "utf8").trimEnd().split("\n")).toEqual(LONG_MCQ_LINES["global-piqa"]!);
  }, 120_000);

  test("a bad configs.json in --data-dir is a clear error and writes nothing", async () => {
    await using dir = await tempDir();
    const data = join(dir.path, "data", "global-piqa");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "configs.json"), '{"eng_latn": 1}');
    const out = join(dir.path, "out");
    const r = await runGym(["eval", "prepare", "--benchmark", "global-piqa", "--data-dir", join(dir.path, "data"), "--output-dir", out], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("configs.json: not a JSON list of config names");
    expect(existsSync(join(out, LONG_MCQ_JSONL["global-piqa"]!))).toBe(false);
  }, 60_000);

  test("aalcr names a document missing from the archive and writes nothing", async () => {
    await using dir = await tempDir();
    const path = "/datasets/ArtificialAnalysis/AA-LCR/resolve/main/extracted_text/AA-LCR_extracted-text.zip";
    const real = srv.files.get(path)!;
    const { zipOf } = await import("../fixtures/benchmarks/files.ts");
    srv.files.set(path, zipOf([{ path: "lcr/Finance/set2/report.txt", data: new TextEncoder().encode("x"), deflate: false }]));
    try {
      const out = join(dir.path, "out");
      const r = await runGym(["eval", "prepare", "--benchmark", "aalcr", "--output-dir", out, `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url } });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("document 'lcr/Legal/set1/SmithΓÇÖs brief.txt' is not in extracted_text/AA-LCR_extracted-text.zip");
      expect(existsSync(join(out, LONG_MCQ_JSONL.aalcr!))).toBe(false);
    } finally {
      srv.files.set(path, real);
    }
  }, 60_000);

  test.each([
    ["bunsenbench_chemistry_mcq", "tools/reconstitute.py of the Hub dataset nvidia/bunsen-bench"],
    ["longbench_v2/config_n3_1m", "gated Hugging Face tokenizer nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16"],
    ["longcodebench/config_n3_1m", "gated Hugging Face tokenizer nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16"],
  ])("%s: a clear config error naming what it needs, before any download", async (name, needs) => {
    await using dir = await tempDir();
    const before = srv.seen.length;
    const r = await runGym(["eval", "prepare", "--benchmark", name, "--output-dir", join(dir.path, "out"), `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("gym cannot prepare this benchmark itself");
    expect(r.stderr).toContain(needs);
    expect(srv.seen.length).toBe(before);
  }, 60_000);

  test("gym list benchmarks shows them with built-in servers", async () => {
    await using dir = await tempDir();
    const r = await runGym(["list", "benchmarks"], { cwd: dir.path });
    expect(r.code).toBe(0);
    for (const n of NAMES) {
      const line = r.stdout.split("\n").find((l) => l.startsWith(`${n} `));
      expect([n, line]).not.toEqual([n, undefined]);
      expect(line).toContain("built in");
    }
  }, 60_000);
});

describe("Python semantics the preparers rely on", () => {
  test("datasets' walk order of an extracted archive", () => {
    expect(datasetsWalkOrder(["b/z.json", "a.json", "b/a/y.json", "__MACOSX/b/._z.json", "b/.hidden", "c.json", "b/b.json"])).toEqual(["a.json", "c.json", "b/b.json", "b/z.json", "b/a/y.json"]);
  });
  test("upstream's _dirty_filename", () => {
    expect(dirtyFilename("O'Neil’s ‘x’ — a – b ş.txt")).toBe("OΓÇÖNeilΓÇÖs ΓÇÖxΓÇÖ ΓÇö a ΓÇô b s╠º.txt");
  });
  // Python facts: bytes(case).decode("utf-8", "ignore") under CPython 3.11.
  test.each([
    [[111, 107], "ok"],
    [[97, 255, 98], "ab"],
    [[226, 128], ""],
    [[226, 128, 120], "x"],
    [[240, 159, 152, 128], "\ud83d\ude00"],
    [[237, 160, 128, 122], "z"],
    [[192, 175, 113], "q"],
    [[239, 187, 191, 104, 105], "\ufeffhi"],
    [[244, 144, 128, 128, 116], "t"],
  ])("decode(%p, errors=ignore)", (bytes, want) => {
    expect(decodeUtf8Ignore(new Uint8Array(bytes as number[]))).toBe(want as string);
  });
});
