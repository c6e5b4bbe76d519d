/**
 * `gym eval reverify` of upstream's recorded example rollouts for the math family servers
 * (physics_judge, ugphysics_judge, imo_proofbench_judge, math_proof_judgement, imo_gradingbench,
 * proof_genselect): rewards and every other recorded verify field as recorded, judge calls replayed
 * by scripted_model from the recordings (D26). Rollouts are paired with their example row by prompt,
 * else with the recorded materialized inputs by task index. Each prints `agreeing/total`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
type Row = Record<string, any>;
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const stable = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(stable).join(",")}]` : v && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Row)[k])}`).join(",")}}` : JSON.stringify(v);
const promptKey = (r: Row) => stable((r.responses_create_params.input as Row[]).map((m) => [m.role, m.content]));
const WIRE = new Set(["responses_create_params", "response", "agent_ref", "reward"]);

interface Case {
  server: string;
  agent: string;
  /** Overrides (the judge pointed at scripted_model, which replays the recorded judge calls). */
  overrides?: string[];
  /** Recorded fields not compared, each with the reason. */
  skip?: Record<string, string>;
}

// The judge pointed at scripted_model over /v1/responses (it replays recorded judge calls from the rollouts).
const judgeAt = (server: string) => [`++${server}.resources_servers.${server}.judge_model_server.name=policy_model`, `++${server}.resources_servers.${server}.use_chat_completions_for_judge=false`];

const CASES: Case[] = [
  { server: "imo_gradingbench", agent: "imo_gradingbench_simple_agent" },
  { server: "math_proof_judgement", agent: "math_proof_judgement_simple_agent" },
  { server: "proof_genselect", agent: "proof_genselect_simple_agent" },
  {
    server: "physics_judge",
    agent: "physics_judge_simple_agent",
    overrides: judgeAt("physics_judge"),
    skip: { extracted_answer: "SymPy's str() of the unevaluated parse (its term order and parentheses) is not reproduced; no reward depends on it" },
  },
  { server: "ugphysics_judge", agent: "ugphysics_judge_simple_agent", overrides: judgeAt("ugphysics_judge") },
];

function prepare(dir: string, c: Case): { rollouts: string; inputs: string; recs: Row[] } {
  const data = join(ASSETS, c.server, "data");
  const recs = lines(join(data, "example_rollouts.jsonl"));
  const byPrompt = new Map(lines(join(data, "example.jsonl")).map((r) => [promptKey(r), r]));
  const mat = join(data, "example_rollouts_materialized_inputs.jsonl");
  const byTask = new Map(existsSync(mat) ? lines(mat).map((r) => [r._ng_task_index, r]) : []);
  const stamp = (i: number) => ({ _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { type: "responses_api_agents", name: c.agent } });
  const rows = recs.map((r, i) => {
    const row = byTask.get(r._ng_task_index) ?? byPrompt.get(promptKey(r));
    if (!row) throw new Error(`${c.server}: rollout ${i} has no example row with its prompt and no materialized input`);
    return { ...row, ...stamp(i) };
  });
  const out = { rollouts: join(dir, "rollouts.jsonl"), inputs: join(dir, "inputs.jsonl"), recs: recs.map((r, i) => ({ ...r, ...stamp(i) })) };
  writeFileSync(out.rollouts, out.recs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  writeFileSync(out.inputs, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return out;
}

describe("gym eval reverify reproduces upstream's recorded math-family rollouts", () => {
  test.each(CASES.map((c) => [c.server, c] as [string, Case]))("%s", async (_name, c) => {
    await using dir = await tempDir();
    const p = prepare(dir.path, c);
    const out = join(dir.path, "out.jsonl");
    const r = await runGym([
      "eval", "reverify", "--force", "--resources-server", c.server, "--model-type", "scripted_model", "+head_server.port=0",
      `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${p.rollouts}`, ...(c.overrides ?? []),
      "--rollouts", p.rollouts, "--inputs", p.inputs, "-o", out,
    ], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    const soft: string[] = [];
    for (const rec of p.recs) {
      const got = now.get(rec._ng_task_index)!;
      expect([rec._ng_task_index, got.reward]).toEqual([rec._ng_task_index, rec.reward]);
      if (got.reward === rec.reward) agree++;
      for (const [k, v] of Object.entries(rec)) {
        if (WIRE.has(k) || k.startsWith("_ng_")) continue;
        // A field with a stated reason is reported when it differs, never silently dropped.
        if (c.skip?.[k]) {
          if (stable(got[k]) !== stable(v)) soft.push(`task ${rec._ng_task_index} ${k}: ${JSON.stringify(got[k])} vs recorded ${JSON.stringify(v)} (${c.skip[k]})`);
        } else expect([rec._ng_task_index, k, got[k]]).toEqual([rec._ng_task_index, k, v]);
      }
    }
    process.stderr.write(`reverify ${c.server}/example_rollouts.jsonl: ${agree}/${p.recs.length} rewards as recorded${soft.map((x) => `\n  differs: ${x}`).join("")}\n`);
  }, 120_000);
});

// imo_proofbench_judge records the judge's text (`judge_output`), not the call, so scripted_model has nothing
// to replay: the judge is a local OpenAI-compatible endpoint answering each recorded problem's judge text
// over /v1/chat/completions (use_chat_completions_for_judge as shipped).
test("imo_proofbench_judge: rewards and judge fields as recorded, judge answered by a local chat endpoint", async () => {
  await using dir = await tempDir();
  const c: Case = { server: "imo_proofbench_judge", agent: "imo_proofbench_judge_simple_agent" };
  const p = prepare(dir.path, c);
  const asked: string[] = [];
  const judge = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return Response.json({ object: "list", data: [{ id: "judge", object: "model" }] });
      const body = (await req.json()) as { messages: { content: string }[] };
      const prompt = body.messages[0]!.content;
      const rec = p.recs.find((r) => prompt.includes(r.problem) && prompt.includes(r.extracted_answer));
      asked.push(rec?.problem_id ?? "?");
      const content = rec ? rec.judge_output : "no recording";
      return Response.json({ id: "j", object: "chat.completion", created: 0, model: "judge", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] });
    },
  });
  try {
    const out = join(dir.path, "out.jsonl");
    const r = await runGym([
      "eval", "reverify", "--force", "--resources-server", c.server, "--model-type", "scripted_model", "+head_server.port=0",
      `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${p.rollouts}`,
      `+judge_base_url=http://127.0.0.1:${judge.port}/v1`, "+judge_api_key=test-key", "+judge_model_name=judge",
      "--rollouts", p.rollouts, "--inputs", p.inputs, "-o", out,
    ], { cwd: dir.path });
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = new Map(readJsonl(out).map((x) => [x._ng_task_index, x]));
    let agree = 0;
    for (const rec of p.recs) {
      const got = now.get(rec._ng_task_index)!;
      if (got.reward === rec.reward) agree++;
      for (const [k, v] of Object.entries(rec)) if (!WIRE.has(k) && !k.startsWith("_ng_")) expect([rec._ng_task_index, k, got[k]]).toEqual([rec._ng_task_index, k, v]);
    }
    // Rollouts without a boxed answer never reach the judge.
    expect(asked.sort()).toEqual(p.recs.filter((x) => x.extracted_answer !== "" && x.symbolic_correct === 0).map((x) => x.problem_id).sort());
    process.stderr.write(`reverify ${c.server}/example_rollouts.jsonl: ${agree}/${p.recs.length} rewards as recorded (${asked.length} judge calls)\n`);
  } finally {
    judge.stop(true);
  }
}, 120_000);
