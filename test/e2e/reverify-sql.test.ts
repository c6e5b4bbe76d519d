/**
 * `gym eval reverify` of upstream's recorded bird_sql and spider2_lite example rollouts on fixture
 * databases (test/fixtures/sql: upstream's schemas — bird's with its first rows from the example's
 * SQL dump — plus hand-made rows), found through the configs' default relative `bird_sql_dir` /
 * `spider2_lite_dir` under the working directory (a search root). Every recorded reward and every
 * other recorded verify field is reproduced. bird's rollouts carry only the wire fields and pair
 * with example.jsonl by prompt; spider's were recorded on the validation split and carry their
 * task's fields (gold_sql, db_id, …), so they are their own inputs.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBirdDir, buildSpider2Dir } from "../fixtures/sql/build.ts";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
type Row = Record<string, any>;
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const promptKey = (r: Row) => JSON.stringify((r.responses_create_params.input as Row[]).map((m) => [m.role, m.content]));
const WIRE = new Set(["responses_create_params", "response", "agent_ref", "reward"]);
const VERIFY_OUT = new Set(["response", "reward", "model_output", "extracted_sql", "execution_match", "failure_reason"]);

// [server, agent, build the databases under <cwd>/<default dir>, inputs of a rollout]
const SERVERS: [string, string, (cwd: string) => void, (rec: Row, examples: Map<string, Row>) => Row | undefined][] = [
  ["bird_sql", "bird_sql_simple_agent", (cwd) => buildBirdDir(join(cwd, "resources_servers", "bird_sql", ".bird_sql")), (rec, ex) => ex.get(promptKey(rec))],
  ["spider2_lite", "spider2_lite_simple_agent", (cwd) => buildSpider2Dir(join(cwd, "resources_servers", "spider2_lite", ".spider2_lite")), (rec) => Object.fromEntries(Object.entries(rec).filter(([k]) => !VERIFY_OUT.has(k) && !k.startsWith("_ng_")))],
];

describe("gym eval reverify reproduces upstream's recorded SQL rewards on fixture databases", () => {
  test.each(SERVERS)("%s", async (server, agent, build, inputOf) => {
    await using dir = await tempDir();
    build(dir.path);
    const data = join(ASSETS, server, "data");
    const examples = new Map(lines(join(data, "example.jsonl")).map((r) => [promptKey(r), r]));
    const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: agent } });
    const recs: Row[] = lines(join(data, "example_rollouts.jsonl")).map((r, i) => ({ ...r, ...stamp(i) }));
    const inputs = recs.map((r, i) => {
      const row = inputOf(r, examples);
      if (!row) throw new Error(`${server}: rollout ${i} has no example row with its prompt`);
      return { ...row, ...stamp(i) };
    });
    const rollouts = join(dir.path, "rollouts.jsonl");
    const inputsFile = join(dir.path, "inputs.jsonl");
    writeFileSync(rollouts, recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    writeFileSync(inputsFile, inputs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const out = join(dir.path, "out.jsonl");
    const r = await runGym(["eval", "reverify", "--force", "--resources-server", server, "--model-type", "scripted_model", "+head_server.port=0", "--rollouts", rollouts, "--inputs", inputsFile, "-o", out], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    for (const rec of recs) {
      const got = now.get(rec._ng_task_index)!;
      expect(got.reward).toBe(rec.reward);
      if (got.reward === rec.reward) agree++;
      for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_")) expect([k, got[k]]).toEqual([k, v]);
    }
    process.stderr.write(`reverify ${server}/example_rollouts.jsonl: ${agree}/${recs.length} rewards as recorded\n`);
  }, 120_000);
});
