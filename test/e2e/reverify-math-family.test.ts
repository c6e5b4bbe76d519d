/**
 * `gym eval reverify` of upstream's recorded example rollouts for the math family servers
 * (physics_judge, ugphysics_judge, imo_proofbench_judge, math_proof_judgement, imo_gradingbench,
 * proof_genselect): rewards and every other recorded verify field as recorded, judge calls replayed
 * by scripted_model from the recordings (D26). Rollouts are paired with their example row by prompt,
 * else with the recorded materialized inputs by task index. Each prints `agreeing/total`.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ASSETS, jsonLines, promptKey, runReverify, stable, WIRE, writePairs, type ReverifyFiles } from "../helpers/reverify.ts";
import { tempDir } from "../helpers/tmp.ts";

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

function prepare(dir: string, c: Case): ReverifyFiles {
  const data = join(ASSETS, c.server, "data");
  const byPrompt = new Map(jsonLines(join(data, "example.jsonl")).map((r) => [promptKey(r), r]));
  const mat = join(data, "example_rollouts_materialized_inputs.jsonl");
  const byTask = new Map(existsSync(mat) ? jsonLines(mat).map((r) => [r._ng_task_index, r]) : []);
  const pair = (r: Record<string, any>) => byTask.get(r._ng_task_index) ?? byPrompt.get(promptKey(r));
  return writePairs(dir, jsonLines(join(data, "example_rollouts.jsonl")), pair, { type: "responses_api_agents", name: c.agent }, c.server);
}

/** scripted_model replays the judge calls recorded in the rollouts themselves (D26). */
const replayOf = (p: ReverifyFiles) => `++policy_model.responses_api_models.scripted_model.replay_jsonl_fpath=${p.rollouts}`;

describe("gym eval reverify reproduces upstream's recorded math-family rollouts", () => {
  test.each(CASES.map((c) => [c.server, c] as [string, Case]))("%s", async (_name, c) => {
    await using dir = await tempDir();
    const p = prepare(dir.path, c);
    const r = await runReverify(dir.path, c.server, p, [replayOf(p), ...(c.overrides ?? [])]);
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = r.byTask;
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
    const r = await runReverify(dir.path, c.server, p, [replayOf(p), `+judge_base_url=http://127.0.0.1:${judge.port}/v1`, "+judge_api_key=test-key", "+judge_model_name=judge"]);
    expect(r.stderr).toContain("0 failed");
    expect(r.code).toBe(0);
    const now = r.byTask;
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
