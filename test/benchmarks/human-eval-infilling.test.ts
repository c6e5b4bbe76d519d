/**
 * HumanEval-Infilling and code_fim: upstream's helper tests as data (extraction without stripping, overlap
 * trimming), the preparation over a local GitHub server (openai/human-eval-infilling's real random_span
 * file), and `gym eval reverify` of upstream's recorded code_fim example rollouts against that real data.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extractFimCode, postprocessCompletion, removeOverlap } from "../../src/verify/code/fim.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

describe("code_fim helpers (upstream TestExtractCode / TestRemoveOverlap / TestPostprocessCompletion as data)", () => {
  const EXTRACT: [string, string, string][] = [
    ["last python fence, unstripped", "scratch ```python\nx=1\n``` then ```python\ny=2\n```", "\ny=2\n"],
    ["a lone generic pair ends at its own closing fence", "no language tag ```\nz=3\n```", ""],
    ["no closing fence", "```python\nincomplete", ""],
    ["no fence", "plain text no fences", ""],
    ["carriage returns removed", "```python\r\nprint(1)\r\n```", "\nprint(1)\n"],
    ["last of several", "Step 1: ```python\nx=1\n```\nStep 2: ```python\nfinal=42\n```", "\nfinal=42\n"],
    ["text after </think>", "<think>scratch ```python\nbad\n```</think>final ```python\ngood\n```", "\ngood\n"],
    ["an unclosed <think> falls through", "<think>still thinking ```python\nfake\n```", "\nfake\n"],
  ];
  test.each(EXTRACT)("extract: %s", (_n, text, want) => expect(extractFimCode(text)).toBe(want));
  const OVERLAP: [string, string, string, "preceding" | "following", string][] = [
    ["prefix overlap", "abc\n", "c\nrest", "following", "rest"],
    ["no overlap", "abc", "xyz", "following", "xyz"],
    ["whitespace-only overlap without newline skipped", "foo ", " bar", "following", " bar"],
    ["preceding truncated against the suffix", "body\nx=1\n", "x=1\nrest", "preceding", "body\n"],
  ];
  test.each(OVERLAP)("remove_overlap: %s", (_n, a, b, from, want) => expect(removeOverlap(a, b, from)).toBe(want));
  test("postprocess: one leading newline dropped, head and tail overlaps trimmed", () => {
    expect(postprocessCompletion("\nbody", "def f(x):\n", "\n")).toBe("body");
    expect(postprocessCompletion("\n    y = x + 1", "def f(x):\n    ", "\n    return y\n")).toBe("    y = x + 1");
    expect(postprocessCompletion("y = x + 1\n    return y", "def f(x):\n    ", "\n    return y\n")).toBe("y = x + 1");
  });
});

describe("human_eval_infilling on code_fim", () => {
  test("prepare (rows as Skills' clean_data, every split's problems kept for the server), then reverify upstream's recorded rollouts", async () => {
    await using dir = await tempDir();
    const env = { XDG_CACHE_HOME: join(dir.path, "cache") };
    const prep = await runGym(["eval", "prepare", "--benchmark", "human_eval_infilling", `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env });
    expect(prep.stderr).not.toContain("error:");
    expect(prep.code).toBe(0);
    const root = join(dir.path, "cache", "gym", "prepared");
    const rows = readFileSync(join(root, "benchmarks/human_eval_infilling/data/random_span.jsonl"), "utf8").trim().split("\n");
    expect(rows.length).toBe(1640);
    const first = JSON.parse(rows[0]!);
    expect(Object.keys(first)).toEqual(["task_id", "prefix", "suffix", "canonical_solution", "language", "split", "comment_delimiter", "verifier_metadata"]);
    expect(first).toMatchObject({ task_id: "RandomSpanInfilling/HumanEval/0/1", language: "python", split: "random_span", comment_delimiter: "#", verifier_metadata: { task_id: "RandomSpanInfilling/HumanEval/0/1" } });
    expect(rows[0]!).toStartWith('{"task_id": "RandomSpanInfilling/HumanEval/0/1", "prefix": ');
    for (const f of ["single_line.jsonl", "multi_line.jsonl"]) expect(existsSync(join(root, "benchmarks/human_eval_infilling/data", f))).toBe(true);
    for (const f of ["SingleLineInfilling", "MultiLineInfilling", "RandomSpanInfilling", "RandomSpanInfillingLight"]) expect(existsSync(join(root, "human_eval_infilling", `HumanEval-${f}.jsonl`))).toBe(true);

    const data = join(import.meta.dir, "..", "..", "assets", "resources_servers", "code_fim", "data");
    const lines = (p: string) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
    const recs = lines(join(data, "example_rollouts.jsonl"));
    const examples = lines(join(data, "example.jsonl"));
    // Rollouts carry their task index; inputs are the example rows in order.
    const rollouts = join(dir.path, "rollouts.jsonl"), inputs = join(dir.path, "inputs.jsonl"), out = join(dir.path, "out.jsonl");
    writeFileSync(rollouts, recs.map((r) => JSON.stringify({ ...r, agent_ref: { name: "code_fim_simple_agent" } })).join("\n") + "\n");
    writeFileSync(inputs, examples.map((r, i) => JSON.stringify({ ...r, _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "code_fim_simple_agent" } })).join("\n") + "\n");
    const rv = await runGym(["eval", "reverify", "--resources-server", "code_fim", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputs, "-o", out], { cwd: dir.path, env });
    expect(rv.stderr).toContain("0 failed");
    expect(rv.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [`${x._ng_task_index}/${x._ng_rollout_index}`, x]));
    let agree = 0;
    for (const rec of recs) {
      const got = now.get(`${rec._ng_task_index}/${rec._ng_rollout_index}`)!;
      for (const k of ["reward", "passed", "status", "completion", "extracted_model_code"]) expect(got[k]).toEqual(rec[k]);
      if (got.reward === rec.reward) agree++;
    }
    process.stderr.write(`reverify code_fim/example_rollouts.jsonl (real HumanEval-Infilling random_span): ${agree}/${recs.length} rewards as recorded\n`);
  }, 300_000);
});
