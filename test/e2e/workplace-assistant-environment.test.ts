/**
 * The workplace_assistant environment bundle (environments/workplace_assistant) runs on the built-in
 * server: its example split runs end to end, and a replay of upstream's recorded multi-step rollouts
 * through the real tool routes reproduces them. The scripted model continues a recording only while
 * every tool output the agent sends back is byte-identical to the recorded one, so this checks the
 * tools' answers (searches, ids, pagination, JSON text) as well as the rewards. The recordings carry
 * no ground_truth: the gold actions are the ones test/e2e/reverify-workplace-assistant.test.ts
 * restores from WorkBench (and checks against the tables).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

type Row = Record<string, any>;
const ENV = join(import.meta.dir, "..", "..", "assets", "environments", "workplace_assistant");
const call = (name: string, args: Row) => ({ name, arguments: JSON.stringify(args) });
const GOLD: Row[][] = [
  [call("analytics_create_plot", { time_min: "2023-11-30", time_max: "2023-11-30", value_to_plot: "total_visits", plot_type: "bar" })],
  [],
  [call("customer_relationship_manager_delete_customer", { customer_id: "00000014" })],
  [call("customer_relationship_manager_add_customer", { customer_name: "Dakota Thomas", assigned_to_email: "nadia.moreau@atlas.com", status: "Lead" })],
  [call("email_delete_email", { email_id: "00000259" })],
];
const outputs = (items: Row[]) => items.filter((o) => o.type === "function_call_output").map((o) => o.output);

describe("environments/workplace_assistant", () => {
  test("the example split runs end to end on the built-in server", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "run", "--environment", "workplace_assistant", "--model-type", "scripted_model", "+head_server.port=0", "--split", "example", "-o", out], { cwd: dir.path });
    expect(r.code).toBe(0);
    const rows = readJsonl(out);
    expect(rows.length).toBe(5);
    // The scripted model's synthesised first call hits a real tool route: its answer comes back as {"output": …}.
    expect(rows.filter((row) => outputs(row.response.output).length > 0).length).toBe(5);
    for (const row of rows) {
      expect(typeof row.reward).toBe("number");
      for (const o of outputs(row.response.output)) expect(Object.keys(JSON.parse(o))).toEqual(["output"]);
    }
  }, 180_000);

  test("a replay of the recorded rollouts gets the recorded tool outputs and rewards", async () => {
    await using dir = await tempDir();
    const recorded = join(ENV, "data", "example_rollouts.jsonl");
    const recs = readFileSync(recorded, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Row);
    // The shipped config names environments/workplace_assistant/data/example.jsonl; the working
    // directory is the first search root, so rows placed there (the recordings' prompts with their gold) win.
    const data = join(dir.path, "environments", "workplace_assistant", "data");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "example.jsonl"), recs.map((r, i) => JSON.stringify({ responses_create_params: r.responses_create_params, ground_truth: GOLD[i], category: "workplace_assistant", environment_name: "workplace_assistant", id: i })).join("\n") + "\n");
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "run", "--environment", "workplace_assistant", "--model-type", "scripted_model", "+head_server.port=0", `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${recorded}`, "--split", "example", "-o", out], { cwd: dir.path });
    expect(r.code).toBe(0);
    const got = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    recs.forEach((rec, i) => {
      const now = got.get(i)!;
      expect([i, outputs(now.response.output)]).toEqual([i, outputs(rec.response.output)]);
      expect([i, now.reward]).toEqual([i, rec.reward]);
      if (now.reward === rec.reward) agree++;
    });
    process.stderr.write(`environment workplace_assistant: ${agree}/${recs.length} replayed rollouts with recorded tool outputs and rewards\n`);
  }, 180_000);
});
