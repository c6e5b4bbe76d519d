/**
 * `gym eval reverify` of upstream's recorded example rollouts for the rule-based library servers
 * reproduces the recorded rewards and the other recorded verify fields. Rollouts without the task's
 * fields are paired with their example row by prompt, else with the recorded materialized inputs by
 * task index. graphwalks' rollouts carry their task's fields and are their own inputs. ruler is not
 * here: its recordings hold no reference answers (`outputs`) and were made on other prompts than
 * today's examples. math_advanced_calculations is not here: its recordings hold neither ground_truth nor a
 * prompt of today's example.jsonl (upstream re-made the examples after recording), so nothing pairs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ASSETS, jsonLines, promptKey, runReverify, WIRE, writePairs, type ReverifyFiles } from "../helpers/reverify.ts";
import { tempDir } from "../helpers/tmp.ts";

const SELF_CONTAINED = new Set(["graphwalks"]);
const VERIFY_OUT = new Set(["response", "reward", "f1", "parse_failed", "predicted_nodes"]);

function prepare(dir: string, server: string, agent: string): ReverifyFiles {
  const data = join(ASSETS, server, "data");
  const byPrompt = new Map(jsonLines(join(data, "example.jsonl")).map((r) => [promptKey(r), r]));
  const mat = join(data, "example_rollouts_materialized_inputs.jsonl");
  const byTask = new Map(existsSync(mat) ? jsonLines(mat).map((r) => [r._ng_task_index, r]) : []);
  const pair = (r: Record<string, any>) => {
    // graphwalks recorded on prompts upstream later rewrote, but each rollout carries its task's fields: it is its own input.
    const own = SELF_CONTAINED.has(server) ? Object.fromEntries(Object.entries(r).filter(([k]) => !VERIFY_OUT.has(k) && !k.startsWith("_ng_"))) : undefined;
    return byPrompt.get(promptKey(r)) ?? byTask.get(r._ng_task_index) ?? own;
  };
  return writePairs(dir, jsonLines(join(data, "example_rollouts.jsonl")), pair, { name: agent }, server);
}

// [--resources-server selector, asset dir, agent instance]
const SERVERS: [string, string, string][] = [
  ["example_tool_call_multireward", "example_tool_call_multireward", "example_tool_call_multireward_simple_agent"],
  ["xlam_fc", "xlam_fc", "xlam_fc_simple_agent"],
  ["calendar", "calendar", "calendar_simple_agent"],
  ["equivalence_rule/lc", "equivalence_rule", "lc_equivalence_rule_simple_agent"],
  ["arc_agi", "arc_agi", "arc_agi_simple_agent"],
  ["circle_click", "circle_click", "circle_click_simple_agent"],
  ["circle_count", "circle_count", "circle_count_simple_agent"],
  ["string_match", "string_match", "string_match_simple_agent"],
  ["gui_coordinate", "gui_coordinate", "gui_coordinate_simple_agent"],
  ["lc_niah", "lc_niah", "lc_niah_simple_agent"],
  ["single_step_tool_use_with_argument_comparison", "single_step_tool_use_with_argument_comparison", "single_step_tool_use_with_argument_comparison_agent"],
  ["ruler2", "ruler2", "ruler2_simple_agent"],
  ["graphwalks", "graphwalks", "graphwalks_simple_agent"],
  ["mrcr", "mrcr", "mrcr_simple_agent"],
];

describe("gym eval reverify reproduces upstream's recorded rewards (rule-based library)", () => {
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
      // Every other verify field upstream recorded (predicted calls, components, clicks, grids) is reproduced too.
      for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_")) expect([k, got[k]]).toEqual([k, v]);
    }
    process.stderr.write(`reverify ${server}/example_rollouts.jsonl: ${agree}/${p.recs.length} rewards as recorded\n`);
  }, 120_000);
});
