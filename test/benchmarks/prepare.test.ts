/**
 * `gym eval prepare` end to end over a local source server: every shipped preparer online
 * (raw mirror with a redirect, a 500 then success, a gated Hub parquet needing the token), a
 * bundle round trip and --data-dir with every endpoint closed, and the bad-input errors.
 */
import { ARENA_JSONL, M_ARENA_JSONL } from "../fixtures/benchmarks/arena-files.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readTar } from "../../src/dataset/formats/tar.ts";
import { freePort, runGym, tempDir } from "../helpers/tmp.ts";
import { MATH_JSONL } from "../fixtures/benchmarks/math-files.ts";
import { GPQA_ROWS, MMLU_PRO_ROWS, MMLU_UUIDS } from "../fixtures/benchmarks/files.ts";
import { JUDGE_BENCH_JSONL } from "../fixtures/benchmarks/judge-files.ts";
import { LONG_MCQ_JSONL } from "../fixtures/benchmarks/long-mcq-files.ts";
import { LEAN_JSONL } from "../fixtures/benchmarks/lean-files.ts";
import { startSourceServer, startTruncatingServer, TOKEN, type SourceServer } from "../fixtures/benchmarks/server.ts";

const JSONL = {
  gsm8k: "benchmarks/gsm8k/data/gsm8k_benchmark.jsonl",
  "math-500": "benchmarks/math-500/data/math-500_benchmark.jsonl",
  ifeval: "benchmarks/ifeval/data/ifeval_benchmark.jsonl",
  gpqa: "benchmarks/gpqa/data/gpqa_diamond_benchmark.jsonl",
  mmlu_pro: "benchmarks/mmlu_pro/data/mmlu_pro_benchmark.jsonl",
  mmlu: "benchmarks/mmlu/data/mmlu_benchmark.jsonl",
  ...MATH_JSONL,
  "livecodebench/v5_2408_2502": "benchmarks/livecodebench/v5_2408_2502/data/livecodebench_v5_validation.jsonl",
  "livecodebench/v6_2408_2505": "benchmarks/livecodebench/v6_2408_2505/data/livecodebench_v6_validation.jsonl",
  "livecodebench-x": "benchmarks/livecodebench-x/data/livecodebench-x_benchmark.jsonl",
  human_eval: "benchmarks/human_eval/data/human_eval_benchmark.jsonl",
  mbpp: "benchmarks/mbpp/data/mbpp_benchmark.jsonl",
  human_eval_infilling: "benchmarks/human_eval_infilling/data/random_span.jsonl",
  ...ARENA_JSONL,
  ...M_ARENA_JSONL,
  birdbench: "benchmarks/birdbench/data/birdbench_benchmark.jsonl",
  ...LEAN_JSONL,
} as const;
/** Side files preparers leave beside the JSONL (evalplus' release and expected outputs). */
const EXTRA = ["HumanEvalPlus-v0.1.10.jsonl", "HumanEvalPlus-v0.1.10.expected.json", "MbppPlus-v0.2.0.jsonl", "MbppPlus-v0.2.0.expected.json"].map((f) => `evalplus/${f}`).concat(
  ["single_line", "multi_line"].map((s) => `benchmarks/human_eval_infilling/data/${s}.jsonl`),
  ["SingleLineInfilling", "MultiLineInfilling", "RandomSpanInfilling", "RandomSpanInfillingLight"].map((f) => `human_eval_infilling/HumanEval-${f}.jsonl`),
  ["california_schools", "toy_store"].map((d) => `resources_servers/bird_sql/.bird_sql/dev_20240627/dev_databases/${d}/${d}.sqlite`),
);

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

function env(dir: string, hub: string) {
  return { XDG_CACHE_HOME: join(dir, "cache"), HF_ENDPOINT: hub };
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8").trimEnd().split("\n");
}

function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("gym eval prepare (built-in preparers)", () => {
  test("online: every shipped benchmark, then a bundle installed and --data-dir read with the network closed give identical bytes", async () => {
    await using dir = await tempDir();
    const out1 = join(dir.path, "out1");
    srv.failOnce.add("/datasets/TIGER-Lab/MMLU-Pro/resolve/main/data/test-00000-of-00001.parquet");
    srv.seen.length = 0;
    const r = await runGym(["eval", "prepare", "--all", "--output-dir", out1, "--bundle", "b.tar", `+benchmark_mirror_url=${srv.url}`, `+hf_token=${TOKEN}`], {
      cwd: dir.path,
      env: env(dir.path, srv.url),
    });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    // Progress: one line per file; the retry of the 500 is visible.
    expect(r.stderr).toContain("gsm8k: downloading test.jsonl");
    expect(r.stderr).toContain("retrying");
    expect(r.stderr).not.toContain(TOKEN);

    // gsm8k: calculator annotations stripped, thousands separator, float kept, Skills' answer fix applied.
    expect(lines(join(out1, JSONL.gsm8k))).toEqual([
      '{"question": "Tom has 3 bags of 400 apples. How many apples?", "expected_answer": 1200, "reference_solution": "3*400=1200 apples\\n"}',
      '{"question": "Half of one?", "expected_answer": 0.5, "reference_solution": "1/2 = 0.5\\n"}',
      '{"question": "Pete has to take a 10-minute walk down to the train station and then board a 1hr 20-minute train to LA. When should he leave if he cannot get to LA later than 0900 hours? (24-hr time)", "expected_answer": "07:30", "reference_solution": "He needs 90 minutes\\n"}',
    ]);
    // math-500 (reached through a redirect): original keys first, renamed ones appended, non-ASCII kept.
    expect(lines(join(out1, JSONL["math-500"]))[0]).toBe(
      '{"problem": "Compute $1+1$ — quickly.", "subject": "Prealgebra", "level": 1, "unique_id": "test/prealgebra/1.json", "question": "Compute $1+1$ — quickly.", "expected_answer": "2", "reference_solution": "It is $\\\\boxed{2}$."}',
    );
    const ifeval = lines(join(out1, JSONL.ifeval)).map((l) => JSON.parse(l));
    expect(ifeval[1]).toEqual({
      id: 1,
      responses_create_params: { input: [{ role: "user", content: "Answer in exactly 3 bullet points." }], tools: [], parallel_tool_calls: false },
      verifier_metadata: { prompt: "Answer in exactly 3 bullet points.", instruction_id_list: ["detectable_format:number_bullet_lists"], kwargs: [{ num_bullets: 3 }], grading_mode: "binary" },
    });
    // gpqa: options in CPython's shuffle order, the correct letter and uuid5 as upstream computes them.
    const gpqa = lines(join(out1, JSONL.gpqa)).map((l) => JSON.parse(l));
    gpqa.forEach((row, i) => {
      const f = GPQA_ROWS[i]!;
      expect(row.expected_answer).toBe(f.letter);
      expect(row.uuid).toBe(f.uuid);
      expect(row.options).toEqual(f.order.map((t, j) => ({ [String.fromCharCode(65 + j)]: t })));
      expect(row.problem).toBe(`${f.question}\n${f.order.map((t, j) => `${String.fromCharCode(65 + j)}: ${t}`).join("\n")}`);
    });
    const mmlu = lines(join(out1, JSONL.mmlu_pro)).map((l) => JSON.parse(l));
    expect(mmlu.map((m) => [m.expected_answer, m.category, m.options.length])).toEqual(MMLU_PRO_ROWS.map((m) => [m.answer, m.category, m.options.length]));
    expect(mmlu[0].problem).toBe("Which is a prime?\n\nA) 4\nB) 6\nC) 7\nD) 9");
    expect(mmlu[0].question).toBe("\nWhich is a prime?\n");
    // mmlu: tar of CSVs, test split only, short row skipped, answer upper-cased, ensure_ascii=False.
    const mm = lines(join(out1, JSONL.mmlu));
    expect(mm.map((l) => JSON.parse(l)).map((m) => [m.question, m.expected_answer, m.subject, m.subset_for_metrics, m.uuid])).toEqual([
      ["What is 1+1?", "B", "abstract_algebra", "math", MMLU_UUIDS[0]],
      ["Comma, inside", "A", "abstract_algebra", "math", MMLU_UUIDS[1]],
      ["Qué?", "D", "virology", "health", MMLU_UUIDS[2]],
    ]);
    expect(mm[2]).toBe('{"question": "Qué?", "problem": "Qué?\\n\\nA) uno\\nB) dos\\nC) tres\\nD) cuatro", "options": [{"A": "uno"}, {"B": "dos"}, {"C": "tres"}, {"D": "cuatro"}], "expected_answer": "D", "subset_for_metrics": "health", "subject": "virology", "uuid": "83e8a432-8b49-56f3-924b-03e3465ee7cb"}');

    // The bearer token went to the Hub only, and was needed there.
    const gated = srv.seen.filter((s) => s.path.includes("Idavidrein/gpqa"));
    expect(gated.length).toBeGreaterThan(0);
    expect(gated.every((s) => s.auth === `Bearer ${TOKEN}` && s.status === 200)).toBe(true);
    expect(srv.seen.filter((s) => s.path.startsWith("/raw.githubusercontent.com")).every((s) => s.auth === null)).toBe(true);
    expect(srv.seen.some((s) => s.status === 500)).toBe(true);
    expect(srv.seen.some((s) => s.status === 302)).toBe(true);

    // Air-gapped: every endpoint is a closed port.
    const closed = `http://127.0.0.1:${freePort()}`;
    const before = srv.seen.length;
    const out2 = join(dir.path, "out2");
    const inst = await runGym(["eval", "prepare", "--from-bundle", "b.tar", "--output-dir", out2, `+benchmark_mirror_url=${closed}`], { cwd: dir.path, env: env(dir.path, closed) });
    expect(inst.stderr).not.toContain("error:");
    expect(inst.code).toBe(0);
    // The bundle's sources/ folder is the --data-dir layout.
    const src = join(dir.path, "src");
    for (const e of readTar(new Uint8Array(readFileSync(join(dir.path, "b.tar"))), "b.tar")) {
      if (!e.path.startsWith("sources/")) continue;
      const p = join(src, e.path.slice("sources/".length));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, e.data);
    }
    const out3 = join(dir.path, "out3");
    const offline = await runGym(["eval", "prepare", "--all", "--data-dir", src, "--output-dir", out3, `+benchmark_mirror_url=${closed}`], { cwd: dir.path, env: env(dir.path, closed) });
    expect(offline.stderr).not.toContain("error:");
    expect(offline.code).toBe(0);
    expect(srv.seen.length).toBe(before);
    for (const rel of Object.values(JSONL)) {
      const a = readFileSync(join(out1, rel));
      expect(readFileSync(join(out2, rel)).equals(a)).toBe(true);
      expect(readFileSync(join(out3, rel)).equals(a)).toBe(true);
    }
    // The bundle carries the side files as computed (expected outputs hold timings, so a new preparation differs).
    for (const rel of EXTRA) expect(readFileSync(join(out2, rel)).equals(readFileSync(join(out1, rel)))).toBe(true);
    // Nothing but the JSONL and side files was left behind (no temp files).
    expect(walk(out1).map((p) => p.slice(out1.length + 1)).sort()).toEqual([...Object.values(JSONL), ...Object.values(JUDGE_BENCH_JSONL), ...Object.values(LONG_MCQ_JSONL), ...EXTRA].sort());

    // A corrupted entry: one flipped byte in a prepared file.
    const tar = new Uint8Array(readFileSync(join(dir.path, "b.tar")));
    const text = Buffer.from(tar).toString("latin1");
    const at = text.indexOf('{"question": "Tom has');
    tar[at + 15] = "X".charCodeAt(0);
    writeFileSync(join(dir.path, "bad.tar"), tar);
    const out4 = join(dir.path, "out4");
    const bad = await runGym(["eval", "prepare", "--from-bundle", "bad.tar", "--output-dir", out4], { cwd: dir.path, env: env(dir.path, closed) });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error: .*bad\.tar: benchmark 'gsm8k': entry prepared\/benchmarks\/gsm8k\/data\/gsm8k_benchmark\.jsonl is corrupted/);
    expect(bad.stderr.split("\n").filter((l) => l.startsWith("error:")).length).toBe(1);
    expect(existsSync(out4)).toBe(false);
  }, 120_000);

  test("prepared data lands in the cache root, which later commands search; use_cached skips the network", async () => {
    await using dir = await tempDir();
    const e = env(dir.path, srv.url);
    const r = await runGym(["eval", "prepare", "--benchmark", "gsm8k", `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: e });
    expect(r.code).toBe(0);
    const cached = join(dir.path, "cache", "gym", "prepared", JSONL.gsm8k);
    expect(lines(cached).length).toBe(3);
    const before = srv.seen.length;
    const again = await runGym(["eval", "prepare", "--benchmark", "gsm8k", "+use_cached_prepared_benchmarks=true", `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: e });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("using the cached");
    expect(srv.seen.length).toBe(before);
    // gym dataset render shows a prepared row through the benchmark's prompt_config (§6 format_map: `{{}}` → `{}`).
    const shown = await runGym(["dataset", "render", "--benchmark", "gsm8k", "--row", "2"], { cwd: dir.path, env: e });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe("--- user ---\nSolve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\nHalf of one?\n");
    const json = await runGym(["dataset", "render", "--benchmark", "gsm8k", "--row", "1", "--json", "--prompt-config", "benchmarks/prompts/generic/default.yaml"], { cwd: dir.path, env: e });
    expect(JSON.parse(json.stdout)).toEqual([{ role: "user", content: "Tom has 3 bags of 400 apples. How many apples?" }]);
    const past = await runGym(["dataset", "render", "--benchmark", "gsm8k", "--row", "9"], { cwd: dir.path, env: e });
    expect(past.code).toBe(2);
    expect(past.stderr).toContain("has 3 row(s); there is no row 9");
  }, 60_000);

  test("a gated source without hf_token stops before any download (exit 2)", async () => {
    await using dir = await tempDir();
    const before = srv.seen.length;
    const r = await runGym(["eval", "prepare", "--benchmark", "gsm8k", "--benchmark", "gpqa", `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env: env(dir.path, srv.url) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: gpqa: hf:Idavidrein/gpqa gpqa_diamond/train (parquet) is a gated dataset; set hf_token");
    expect(srv.seen.length).toBe(before);
  }, 60_000);

  test("a gated source with a refused token: the Hub's message, naming the benchmark and URL (exit 1); the token is never printed", async () => {
    await using dir = await tempDir();
    const r = await runGym(["eval", "prepare", "--benchmark", "gpqa", "+hf_token=hf_wrong_token"], { cwd: dir.path, env: env(dir.path, srv.url) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: gpqa: Hugging Face: GET http:\/\/127\.0\.0\.1:\d+\/api\/datasets\/Idavidrein\/gpqa\/parquet\/gpqa_diamond\/train → HTTP 401: Access to dataset Idavidrein\/gpqa is restricted/);
    expect(r.stderr).toContain("hint: the Hugging Face token was refused");
    expect(r.stderr).not.toContain("hf_wrong_token");
  }, 60_000);

  test("unknown benchmark: did-you-mean, exit 2", async () => {
    await using dir = await tempDir();
    const r = await runGym(["eval", "prepare", "--benchmark", "gsm8"], { cwd: dir.path, env: env(dir.path, srv.url) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: Unknown benchmark 'gsm8'. Did you mean `gsm8k`?");
  }, 60_000);

  test("a broken source row names file:line; nothing is written (exit 1)", async () => {
    await using dir = await tempDir();
    mkdirSync(join(dir.path, "src", "gsm8k"), { recursive: true });
    writeFileSync(join(dir.path, "src", "gsm8k", "test.jsonl"), '{"question": "a", "answer": "x\\n#### 1"}\n{"question": "b", "answer": \n');
    const out = join(dir.path, "out");
    const r = await runGym(["eval", "prepare", "--benchmark", "gsm8k", "--data-dir", "src", "--output-dir", out], { cwd: dir.path, env: env(dir.path, srv.url) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: test.jsonl:2: not valid JSON");
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  test("--data-dir with a missing file names the benchmark and path (exit 2)", async () => {
    await using dir = await tempDir();
    mkdirSync(join(dir.path, "src"));
    const r = await runGym(["eval", "prepare", "--benchmark", "mmlu_pro", "--data-dir", "src"], { cwd: dir.path, env: env(dir.path, srv.url) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: mmlu_pro: ${join(dir.path, "src", "mmlu_pro", "data", "test-00000-of-00001.parquet")} is missing`);
  }, 60_000);

  test("a cut-off download is a clear error and writes nothing (exit 1)", async () => {
    await using dir = await tempDir();
    const cut = startTruncatingServer(5000, 100);
    try {
      const out = join(dir.path, "out");
      const r = await runGym(["eval", "prepare", "--benchmark", "ifeval", "--output-dir", out, `+benchmark_mirror_url=${cut.url}`, "+request_retry_budget_seconds=1"], { cwd: dir.path, env: env(dir.path, srv.url) });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/error: ifeval: input_data\.jsonl: .*(cut off|closed unexpectedly)/);
      expect(r.stderr).toContain(`hint: check that ${cut.url} is reachable`);
      expect(existsSync(out)).toBe(false);
    } finally {
      cut.stop();
    }
  }, 60_000);
});
