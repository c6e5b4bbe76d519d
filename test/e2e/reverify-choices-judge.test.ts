/**
 * `gym eval reverify` of upstream's recorded example rollouts for mcqa, gpqa_diamond and
 * equivalence_llm_judge (judge calls replayed by scripted_model from the rows' judge_evaluations,
 * D26) reproduces the recorded rewards. The rollout files carry no task index and no options, so
 * each rollout is paired with its example row by prompt and both get the same `_ng_task_index`.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");

function promptKey(r: Record<string, any>): string {
  return JSON.stringify((r.responses_create_params.input as Record<string, unknown>[]).map((m) => [m.role, m.content]));
}

/** Stamp rollouts (and their rows, when given) with matching indexes and the agent's name. */
function prepare(dir: string, server: string, rollouts: string, rows: string | undefined): { rollouts: string; inputs?: string } {
  const recs = readFileSync(join(ASSETS, server, "data", rollouts), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const byPrompt = new Map<string, Record<string, unknown>>();
  if (rows) for (const l of readFileSync(join(ASSETS, server, "data", rows), "utf8").split("\n").filter((x) => x.trim())) byPrompt.set(promptKey(JSON.parse(l)), JSON.parse(l));
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: `${server}_simple_agent` } });
  const out = { rollouts: join(dir, `${rollouts}`), inputs: rows ? join(dir, `inputs_${rollouts}`) : undefined };
  writeFileSync(out.rollouts, recs.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
  if (out.inputs) {
    writeFileSync(out.inputs, recs.map((r, i) => {
      const row = byPrompt.get(promptKey(r));
      if (!row) throw new Error(`${rollouts}: rollout ${i} has no example row with the same prompt`);
      return JSON.stringify({ ...row, ...stamp(i) });
    }).join("\n") + "\n");
  }
  return out;
}

// [server, rollouts file, example rows (for options/template_metadata), extra overrides, known upstream changes since recording]
const FILES: [string, string, string | undefined, string[], Record<number, { recorded: number; now: number; why: string }>][] = [
  ["mcqa", "example_rollouts.jsonl", "example.jsonl", [], {
    // Upstream taught strict_single_letter_boxed to read `\boxed{C: option text}` after these were recorded
    // (tests/test_app.py TestStrictBoxedLatexExtraction); today's upstream extracts C here too.
    2: { recorded: 0, now: 1, why: "\\boxed{C: …} leading label" },
  }],
  ["mcqa", "example_rollouts_with_template_metadata.jsonl", "example_with_template_metadata.jsonl", [], {}],
  ["gpqa_diamond", "example_rollouts.jsonl", undefined, [], {}],
  ["equivalence_llm_judge", "example_rollouts.jsonl", "example.jsonl", [], {}],
  // Recorded with the swap check and the full-generation rescue on (two judge calls per row).
  ["equivalence_llm_judge", "example_rollouts_openqa.jsonl", "example_openqa.jsonl", [
    "++equivalence_llm_judge.resources_servers.equivalence_llm_judge.check_twice_swap=true",
    "++equivalence_llm_judge.resources_servers.equivalence_llm_judge.check_full_generation_on_fail=true",
  ], {}],
];

describe("gym eval reverify reproduces upstream's recorded rewards", () => {
  test.each(FILES)("%s %s", async (server, rollouts, rows, extra, changed) => {
    await using dir = await tempDir();
    const p = prepare(dir.path, server, rollouts, rows);
    const out = join(dir.path, "out.jsonl");
    const r = await runGym([
      "eval", "reverify", "--force", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0",
      `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${p.rollouts}`,
      ...extra, "--rollouts", p.rollouts, ...(p.inputs ? ["--inputs", p.inputs] : []), "-o", out,
    ], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const recorded = readJsonl(p.rollouts);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    for (const rec of recorded) {
      const got = now.get(rec._ng_task_index)!;
      const known = changed[rec._ng_task_index];
      if (known) expect([rec.reward, got.reward]).toEqual([known.recorded, known.now]);
      else expect(got.reward).toBe(rec.reward);
      if (got.reward === rec.reward) agree++;
      if (rec.judge_evaluations) expect(got.judge_evaluations.map((e: any) => e.verdict_label)).toEqual(rec.judge_evaluations.map((e: any) => e.verdict_label));
      if ("extracted_answer" in rec && !known) expect(got.extracted_answer).toBe(rec.extracted_answer);
    }
    process.stderr.write(`reverify ${server}/${rollouts}: ${agree}/${recorded.length} rewards as recorded\n`);
    expect(agree).toBe(recorded.length - Object.keys(changed).length);
  }, 120_000);
});
