/**
 * `gym eval reverify` of upstream's recorded code_gen example rollouts: every program runs again in our
 * sandboxed runner and must get the recorded reward and per-test results. The rollouts carry no task
 * index and no unit tests, so each is paired with its example row (by prompt) for `verifier_metadata`.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const DATA = join(import.meta.dir, "..", "..", "assets", "resources_servers", "code_gen", "data");
const lines = (p: string) => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
// Recorded inputs gained `type: "message"` when the model server normalised them: pair on role and content only.
const promptKey = (r: Record<string, any>) => JSON.stringify((r.responses_create_params.input as Record<string, unknown>[]).map((m) => [m.role, m.content]));

test("code_gen: upstream's recorded rollouts re-verify to the recorded rewards and results", async () => {
  await using dir = await tempDir();
  const rows = new Map(lines(join(DATA, "example.jsonl")).map((r) => [promptKey(r), r]));
  const recs = lines(join(DATA, "example_rollouts.jsonl"));
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "code_gen_simple_agent" } });
  const rollouts = join(dir.path, "rollouts.jsonl"), inputs = join(dir.path, "inputs.jsonl"), out = join(dir.path, "out.jsonl");
  writeFileSync(rollouts, recs.map((r, i) => JSON.stringify({ ...r, ...stamp(i) })).join("\n") + "\n");
  writeFileSync(inputs, recs.map((r, i) => JSON.stringify({ ...rows.get(promptKey(r))!, ...stamp(i) })).join("\n") + "\n");
  const r = await runGym(["eval", "reverify", "--resources-server", "code_gen", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputs, "-o", out], { cwd: dir.path });
  expect(r.stderr).toContain("0 failed");
  expect(r.code).toBe(0);
  const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  let agree = 0;
  recs.forEach((rec, i) => {
    const got = now.get(i)!;
    expect(got.reward).toBe(rec.reward);
    expect(got.result).toEqual(rec.result);
    expect(got.extracted_model_code).toBe(rec.extracted_model_code);
    if (got.reward === rec.reward) agree++;
  });
  process.stderr.write(`reverify code_gen/example_rollouts.jsonl: ${agree}/${recs.length} rewards as recorded\n`);
}, 180_000);
