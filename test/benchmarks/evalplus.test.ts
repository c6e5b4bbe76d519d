/**
 * human_eval / mbpp over a local GitHub-release server: rows as upstream's prepare writes them, the
 * release and the canonical solutions' expected outputs left beside the prepared data (computed once,
 * by the CodeRunner), read by the evalplus server for `gym eval reverify` of upstream's recorded
 * example rollouts and for `gym eval run --benchmark human_eval` with a replayed right and wrong answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";
import { startSourceServer, type SourceServer } from "../fixtures/benchmarks/server.ts";

let srv: SourceServer;
beforeAll(() => {
  srv = startSourceServer();
});
afterAll(() => srv.stop());

const lines = (p: string) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
const EXAMPLES = join(import.meta.dir, "..", "..", "assets", "resources_servers", "evalplus", "data");

/** A Responses API answer whose output text is `text`. */
function answer(text: string): Record<string, unknown> {
  return { id: "resp_x", object: "response", created_at: 0, model: "scripted", status: "completed", output: [{ type: "message", id: "msg_x", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], parallel_tool_calls: false, tool_choice: "auto", tools: [] };
}

describe("human_eval and mbpp", () => {
  test("prepare: rows (prompt 4 spaces → tab), the release and the expected outputs in <root>/evalplus; then reverify and eval run score on them", async () => {
    await using dir = await tempDir();
    const env = { XDG_CACHE_HOME: join(dir.path, "cache"), HF_ENDPOINT: srv.url };
    const prep = await runGym(["eval", "prepare", "--benchmark", "human_eval", "--benchmark", "mbpp", `+benchmark_mirror_url=${srv.url}`], { cwd: dir.path, env });
    expect(prep.stderr).not.toContain("error:");
    expect(prep.code).toBe(0);
    expect(prep.stderr).toMatch(/human_eval: expected outputs of 164 canonical solutions computed in/);
    const root = join(dir.path, "cache", "gym", "prepared");
    const he = lines(join(root, "benchmarks/human_eval/data/human_eval_benchmark.jsonl"));
    expect(he.length).toBe(164);
    expect(Object.keys(he[0]!)).toEqual(["question", "entry_point", "canonical_solution", "verifier_metadata"]);
    expect(he[0]!.verifier_metadata).toEqual({ task_id: "HumanEval/0" });
    expect(he[0]!.question).toContain('\t""" Check if in given list of numbers');
    expect(he[0]!.question).not.toContain("    ");
    // json.dumps' layout (", " and ": ").
    expect(readFileSync(join(root, "benchmarks/human_eval/data/human_eval_benchmark.jsonl"), "utf8")).toStartWith('{"question": "from typing import List\\n\\n\\ndef has_close_elements(');
    expect(lines(join(root, "benchmarks/mbpp/data/mbpp_benchmark.jsonl")).length).toBe(378);
    for (const f of ["HumanEvalPlus-v0.1.10.jsonl", "HumanEvalPlus-v0.1.10.expected.json", "MbppPlus-v0.2.0.jsonl", "MbppPlus-v0.2.0.expected.json"]) expect(existsSync(join(root, "evalplus", f))).toBe(true);
    const truth = JSON.parse(readFileSync(join(root, "evalplus", "HumanEvalPlus-v0.1.10.expected.json"), "utf8"));
    expect(truth.tasks["HumanEval/0"].base).toBe("[true, false, true, false, true, true, false]");
    expect(truth.tasks["HumanEval/0"].base_time.length).toBe(7);
    // Big ints stay exact (Python parses the release line and writes the outputs); tuples keep their type.
    expect(truth.tasks["HumanEval/6"].plus).toBe("[12345678901234567890129]");
    expect(truth.tasks["HumanEval/8"].base).toBe('[{"$t": [3, -3]}]');

    // Reverify upstream's recorded example rollouts against the prepared data (this fixture's inputs, not
    // the real HumanEval+ release: the network is closed here; the recorded verdicts are all pass).
    const recs = lines(join(EXAMPLES, "example_rollouts.jsonl"));
    const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "evalplus_simple_agent" } });
    const rollouts = join(dir.path, "rollouts.jsonl"), inputs = join(dir.path, "inputs.jsonl"), out = join(dir.path, "out.jsonl");
    const examples = lines(join(EXAMPLES, "example.jsonl"));
    writeFileSync(rollouts, recs.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
    writeFileSync(inputs, examples.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
    const rv = await runGym(["eval", "reverify", "--resources-server", "evalplus", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputs, "-o", out], { cwd: dir.path, env });
    expect(rv.stderr).toContain("0 failed");
    expect(rv.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    recs.forEach((rec, i) => {
      const got = now.get(i)!;
      for (const k of ["reward", "base_status", "plus_status", "is_correct", "is_correct_plus", "extracted_model_code", "extracted_model_output"]) expect(got[k]).toEqual(rec[k]);
      expect(got.metadata.base_details).toEqual(rec.metadata.base_details); // base inputs are HumanEval's own
      if (got.reward === rec.reward) agree++;
    });
    process.stderr.write(`reverify evalplus/example_rollouts.jsonl (fixture HumanEval+ inputs): ${agree}/${recs.length} rewards as recorded\n`);

    // gym eval run --benchmark human_eval: task 0 answered right, task 1 wrong, the rest with no code.
    const prompt = (q: string) => `Here is a problem for which you need to generate/complete code:\n${q}\n\nPlease continue to complete the function with python programming language. You are not allowed to modify the given code and do the completion only.\n\nThe solution should be in the following format:\n\`\`\`python\n# Your code here\n\`\`\``;
    const replies = (i: number) => (i === 0 ? "```python\n" + recs[0]!.extracted_model_code + "\n```" : i === 1 ? "```python\ndef separate_paren_groups(paren_string):\n    return [paren_string]\n```" : "I cannot answer.");
    const replay = join(dir.path, "replay.jsonl");
    writeFileSync(replay, he.map((row, i) => JSON.stringify({ responses_create_params: { input: [{ role: "user", content: prompt(row.question) }] }, response: answer(replies(i)) })).join("\n") + "\n");
    const run = await runGym(["eval", "run", "--benchmark", "human_eval", "--model-type", "scripted_model", "+head_server.port=0", `+policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${replay}`], { cwd: dir.path, env });
    expect(run.stderr).not.toContain("error:");
    expect(run.code).toBe(0);
    const got = readJsonl(join(dir.path, "results/human_eval/rollouts.jsonl"));
    expect(got.length).toBe(164);
    for (const x of got) {
      if (x._ng_task_index === 0) expect(x).toMatchObject({ reward: 1.0, base_status: "pass", plus_status: "pass", is_correct: true, is_correct_plus: true });
      else if (x._ng_task_index === 1) expect(x).toMatchObject({ reward: 0.0, base_status: "fail", plus_status: "fail", is_correct: false, is_correct_plus: false, metadata: { base_details: [0, 0, 1, 0] } /* the third base input is one group */ });
      else expect(x).toMatchObject({ reward: 0.0, extracted_model_code: null, base_status: null });
    }
  }, 300_000);
});
