/**
 * `gym eval run --benchmark gpqa --model-type scripted_model`: prepared rows in gpqa's shape, the
 * benchmark's prompt (mcq-4choices) and grading mode (lenient_answer_colon_md) on the built-in mcqa
 * server; answers replayed by scripted_model (right for some rows, wrong for others) score exactly
 * those rows.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ROWS = [
  ["What is the charge of an electron?", ["-1 e", "+1 e", "0", "+2 e"], "A"],
  ["Which gas is most abundant in air?", ["Oxygen", "Nitrogen", "Argon", "CO2"], "B"],
  ["Speed of light (approx.)?", ["3e5 m/s", "3e6 m/s", "3e8 m/s", "3e10 m/s"], "C"],
  ["Water boils at (1 atm)?", ["50 C", "75 C", "90 C", "100 C"], "D"],
].map(([q, opts, gold], i) => {
  const options = (opts as string[]).map((t, j) => ({ [String.fromCharCode(65 + j)]: t }));
  const optionsText = (opts as string[]).map((t, j) => `${String.fromCharCode(65 + j)}) ${t}`).join("\n");
  return { question: q, options_text: optionsText, problem: `${q}\n\n${optionsText}`, options, expected_answer: gold, uuid: `gpqa-${i}` };
});

describe("gym eval run --benchmark gpqa", () => {
  test("replayed right and wrong answers score exactly those rows", async () => {
    await using dir = await tempDir();
    const cache = join(dir.path, "cache");
    const data = join(cache, "gym", "prepared", "benchmarks", "gpqa", "data");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "gpqa_diamond_benchmark.jsonl"), ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const env = { XDG_CACHE_HOME: cache };
    const base = ["eval", "run", "--benchmark", "gpqa", "--model-type", "scripted_model", "+head_server.port=0"];

    // 1. Scripted answers: the prompts the benchmark renders, every row scored 0 (no `Answer:` line).
    const first = await runGym([...base, "-o", "r1/rollouts.jsonl"], { cwd: dir.path, env });
    expect(first.stderr).not.toContain("error:");
    expect(first.code).toBe(0);
    const r1 = readJsonl(join(dir.path, "r1", "rollouts.jsonl"));
    expect(r1.length).toBe(4 * 8); // gpqa's num_repeats: 8
    expect(r1.every((r) => r.reward === 0 && r.extracted_answer === null)).toBe(true);
    expect(r1[0]!.responses_create_params.input[0].content).toContain("Answer the following multiple choice question.");

    // 2. Replay: rows 0 and 2 answered right (one in markdown), rows 1 and 3 wrong.
    const byTask = new Map(r1.map((r) => [r._ng_task_index as number, r]));
    const answer: Record<number, string> = { 0: "Reasoning…\nAnswer: A", 1: "Answer: C", 2: "**Answer:** C", 3: "Answer: A or D" };
    const replay = [...byTask.entries()].map(([t, r]) => ({
      responses_create_params: r.responses_create_params,
      response: { ...r.response, output: [{ id: `msg_${t}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer[t], annotations: [] }] }] },
    }));
    writeFileSync(join(dir.path, "replay.jsonl"), replay.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const second = await runGym([...base, "-o", "r2/rollouts.jsonl", `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${join(dir.path, "replay.jsonl")}`], { cwd: dir.path, env });
    expect(second.code).toBe(0);
    const r2 = readJsonl(join(dir.path, "r2", "rollouts.jsonl"));
    expect(r2.length).toBe(32);
    const want: Record<number, [number, string | null]> = { 0: [1, "A"], 1: [0, "C"], 2: [1, "C"], 3: [0, null] };
    for (const r of r2) expect([r.reward, r.extracted_answer]).toEqual(want[r._ng_task_index as number]!);
    const agg = JSON.parse(await Bun.file(join(dir.path, "r2", "rollouts_aggregate_metrics.json")).text());
    expect(agg[0].agent_metrics["pass@1[avg-of-8]/accuracy"]).toBe(50);
  }, 180_000);
});
