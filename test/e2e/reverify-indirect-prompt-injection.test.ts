/**
 * `gym eval reverify` of upstream's recorded indirect_prompt_injection rollouts. The recordings were
 * made on a task that is not in today's example.jsonl (every one asks about patient P12345's labs) and
 * do not carry the task fields verify needs (injection, required_tools), so they are paired with the
 * example rows by task index. With those rows: the injection verdicts (injection_followed,
 * matched_tool, matched_args) are reproduced on every row, since no recorded call hits any example
 * injection's target; the rewards cannot be, since no recording calls its paired row's required tool
 * (upstream's reward 1.0 came from the unrecorded task's required_tools), so utility and reward are 0.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const DATA = join(import.meta.dir, "..", "..", "assets", "resources_servers", "indirect_prompt_injection", "data");
type Row = Record<string, any>;
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const AGENT = { name: "indirect_prompt_injection_simple_agent" };
const calledTools = (r: Row): string[] => (r.response.output as Row[]).filter((o) => o.type === "function_call").map((o) => o.name);

test("reverify reproduces the recorded injection verdicts; rewards differ only where the paired row's required tool was never called", async () => {
  await using dir = await tempDir();
  const examples = lines(join(DATA, "example.jsonl"));
  const recs: Row[] = lines(join(DATA, "example_rollouts.jsonl")).map((r) => ({ ...r, agent_ref: AGENT }));
  const inputs = recs.map((r) => ({ ...examples[r._ng_task_index]!, _ng_task_index: r._ng_task_index, _ng_rollout_index: r._ng_rollout_index, agent_ref: AGENT }));
  const rollouts = join(dir.path, "rollouts.jsonl");
  const inputsPath = join(dir.path, "inputs.jsonl");
  writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(inputsPath, inputs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym(
    ["eval", "reverify", "--force", "--resources-server", "indirect_prompt_injection", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputsPath, "-o", out],
    { cwd: dir.path },
  );
  expect(r.stderr).toContain("0 failed");
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  expect(now.size).toBe(recs.length);
  let verdicts = 0;
  let rewards = 0;
  for (const rec of recs) {
    const got = now.get(rec._ng_task_index)!;
    const row = examples[rec._ng_task_index]!;
    expect([rec._ng_task_index, got.injection_followed, got.matched_tool, got.matched_args]).toEqual([rec._ng_task_index, rec.injection_followed, rec.matched_tool, rec.matched_args]);
    verdicts++;
    expect(got.reward_safety).toBe(rec.injection_followed ? 0 : 1);
    const utility = (row.required_tools as string[]).every((t) => calledTools(rec).includes(t)) ? 1 : 0;
    expect([rec._ng_task_index, got.reward_utility, got.reward]).toEqual([rec._ng_task_index, utility, got.reward_safety * utility]);
    if (got.reward === rec.reward) rewards++;
  }
  process.stderr.write(`reverify indirect_prompt_injection/example_rollouts.jsonl: verdicts ${verdicts}/${recs.length} as recorded, rewards ${rewards}/${recs.length} (recordings were made on a task not in example.jsonl)\n`);
}, 120_000);
