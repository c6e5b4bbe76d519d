/**
 * `gym eval reverify` of upstream's recorded nvarc rollouts: the transductive ones (grid answers)
 * reproduce their rewards and recorded fields; the inductive ones (Python transform() execution, not
 * built in) are answered with a 500 that names the external recipe, counted as failed, never scored.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Row = Record<string, any>;
const DATA = join(import.meta.dir, "..", "..", "assets", "resources_servers", "nvarc", "data");
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const WIRE = new Set(["responses_create_params", "response", "agent_ref", "reward"]);

test("nvarc transductive rollouts reverify as recorded; inductive ones fail with the external recipe", async () => {
  await using dir = await tempDir();
  const recs = lines(join(DATA, "example_rollouts.jsonl"));
  const rows = lines(join(DATA, "example.jsonl"));
  const stamp = (r: Row, i: number) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: "nvarc_transductive_simple_agent" } });
  writeFileSync(join(dir.path, "rollouts.jsonl"), recs.map((r, i) => JSON.stringify(stamp(r, i))).join("\n") + "\n");
  writeFileSync(join(dir.path, "inputs.jsonl"), recs.map((r, i) => JSON.stringify(stamp(rows[r._ng_task_index]!, i))).join("\n") + "\n");
  const out = join(dir.path, "out.jsonl");
  const r = await runGym(["eval", "reverify", "--force", "--resources-server", "nvarc/transductive", "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", join(dir.path, "rollouts.jsonl"), "--inputs", join(dir.path, "inputs.jsonl"), "-o", out], { cwd: dir.path });
  const got = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
  const transductive = recs.map((rec, i) => [rec, i] as const).filter(([rec]) => rec.agent_mode === "transductive");
  expect(transductive.length).toBe(3);
  let agree = 0;
  for (const [rec, i] of transductive) {
    const g = got.get(i)!;
    expect(g.reward).toBe(rec.reward);
    for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_")) expect([k, g[k]]).toEqual([k, v]);
    agree++;
  }
  // The two inductive rollouts are not scored: they fail, and their failure names the way out.
  expect([...got.values()].some((g) => g.agent_mode === "inductive")).toBe(false);
  expect(readFileSync(join(dir.path, "out_failures.jsonl"), "utf8")).toContain("not built into gym");
  expect(r.stderr).toContain("2 failed");
  process.stderr.write(`reverify nvarc/example_rollouts.jsonl: ${agree}/${transductive.length} transductive rewards as recorded; 2 inductive not built in\n`);
}, 120_000);
