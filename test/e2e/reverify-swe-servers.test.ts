/**
 * `gym eval reverify` of upstream's recorded example rollouts for swerl_llm_judge, swe_pivot and
 * terminal_multi_harness reproduces every recorded reward and every other recorded verify field.
 * Rollouts are paired with their example row by prompt (recorded inputs gained `type: "message"`).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
type Row = Record<string, any>;
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const stable = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(stable).join(",")}]` : v && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Row)[k])}`).join(",")}}` : JSON.stringify(v);
const promptKey = (r: Row) => stable((r.responses_create_params.input as Row[]).map((m) => [m.role, m.content]));
const WIRE = new Set(["responses_create_params", "response", "agent_ref", "reward"]);

function prepare(dir: string, server: string, agent: string): { rollouts: string; inputs: string; recs: Row[] } {
  const data = join(ASSETS, server, "data");
  const recs = lines(join(data, "example_rollouts.jsonl"));
  const examples = lines(join(data, "example.jsonl"));
  const byPrompt = new Map(examples.map((r) => [promptKey(r), r]));
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: agent } });
  const rows = recs.map((r, i) => {
    const row = byPrompt.get(promptKey(r));
    if (!row) throw new Error(`${server}: rollout ${i} has no example row with its prompt`);
    return { ...row, ...stamp(i) };
  });
  const out = { rollouts: join(dir, "rollouts.jsonl"), inputs: join(dir, "inputs.jsonl"), recs: recs.map((r, i) => ({ ...r, ...stamp(i) })) };
  writeFileSync(out.rollouts, out.recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(out.inputs, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return out;
}

// [--resources-server selector, asset dir, agent instance]
const SERVERS: [string, string, string][] = [
  ["swerl_llm_judge", "swerl_llm_judge", "swerl_llm_judge_simple_agent"],
  ["swe_pivot", "swe_pivot", "swe_pivot_tool_simulation_agent"],
  ["terminal_multi_harness/terminal_multi_harness_codex", "terminal_multi_harness", "terminal_multi_harness_codex_agent"],
];

describe("gym eval reverify reproduces upstream's recorded rewards (swe servers)", () => {
  test.each(SERVERS)("%s", async (selector, server, agent) => {
    await using dir = await tempDir();
    const p = prepare(dir.path, server, agent);
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "reverify", "--force", "--resources-server", selector, "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", p.rollouts, "--inputs", p.inputs, "-o", out], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    for (const rec of p.recs) {
      const got = now.get(rec._ng_task_index)!;
      expect(got.reward).toBe(rec.reward);
      if (got.reward === rec.reward) agree++;
      // Every other verify field upstream recorded (categories, similarity scores, echoed actions) is reproduced too.
      for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_")) expect([k, got[k]]).toEqual([k, v]);
    }
    process.stderr.write(`reverify ${server}/example_rollouts.jsonl: ${agree}/${p.recs.length} rewards as recorded\n`);
  }, 120_000);
});
