/**
 * `gym eval reverify` of upstream's recorded example rollouts for swerl_llm_judge, swe_pivot and
 * terminal_multi_harness reproduces every recorded reward and every other recorded verify field.
 * Rollouts are paired with their example row by prompt (recorded inputs gained `type: "message"`).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ASSETS, jsonLines, promptKey, runReverify, WIRE, writePairs, type ReverifyFiles } from "../helpers/reverify.ts";
import { tempDir } from "../helpers/tmp.ts";

function prepare(dir: string, server: string, agent: string): ReverifyFiles {
  const data = join(ASSETS, server, "data");
  const byPrompt = new Map(jsonLines(join(data, "example.jsonl")).map((r) => [promptKey(r), r]));
  return writePairs(dir, jsonLines(join(data, "example_rollouts.jsonl")), (r) => byPrompt.get(promptKey(r)), { name: agent }, server);
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
    const r = await runReverify(dir.path, selector, p);
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = r.byTask;
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
