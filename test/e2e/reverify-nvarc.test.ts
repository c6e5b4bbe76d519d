/**
 * `gym eval reverify` of upstream's recorded nvarc rollouts: the transductive ones (grid answers) and
 * the inductive ones (the model's Python transform() run on the CodeRunner) reproduce their rewards and
 * recorded fields.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Row = Record<string, any>;
const DATA = join(import.meta.dir, "..", "..", "assets", "resources_servers", "nvarc", "data");
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const WIRE = new Set(["responses_create_params", "response", "agent_ref", "reward"]);

test("nvarc rollouts reverify as recorded, transductive and inductive", async () => {
  await using dir = await tempDir();
  const recs = lines(join(DATA, "example_rollouts.jsonl"));
  const rows = lines(join(DATA, "example.jsonl"));
  const stamp = (r: Row, i: number) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "nvarc_transductive_simple_agent" } });
  writeFileSync(join(dir.path, "rollouts.jsonl"), recs.map((r, i) => JSON.stringify(stamp(r, i))).join("\n") + "\n");
  writeFileSync(join(dir.path, "inputs.jsonl"), recs.map((r, i) => JSON.stringify(stamp(rows[r._ng_task_index]!, i))).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym(["eval", "reverify", "--force", "--resources-server", "nvarc/transductive", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", join(dir.path, "rollouts.jsonl"), "--inputs", join(dir.path, "inputs.jsonl"), "-o", out], { cwd: dir.path });
  const got = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  expect(recs.filter((rec) => rec.agent_mode === "transductive").length).toBe(3);
  expect(recs.filter((rec) => rec.agent_mode === "inductive").length).toBe(2);
  let agree = 0;
  recs.forEach((rec, i) => {
    const g = got.get(i)!;
    expect(g).toBeDefined();
    expect(g.reward).toBe(rec.reward);
    for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_")) expect([k, g[k]]).toEqual([k, v]);
    agree++;
  });
  expect(r.stderr).toContain("5 re-verified (0 with a different reward), 0 copied, 0 already done, 0 failed");
  process.stderr.write(`reverify nvarc/example_rollouts.jsonl: ${agree}/${recs.length} rewards as recorded (3 transductive, 2 inductive on the CodeRunner)\n`);
}, 120_000);
