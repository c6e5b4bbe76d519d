/**
 * Reverify of upstream's recorded bbq rollouts. The recording keeps only each row's policy answer,
 * the two parsed verdicts and the rewards (no responses_create_params, response or judge request),
 * so `gym eval reverify` / scripted_model cannot replay it. What is reproducible is everything after
 * the judges: each recorded answer is sent through the real bbq server (prompt rendering, both strict-
 * JSON chat calls, parsing, the authoritative answer class, the product) with the example row it came
 * from, and a loopback judge answers with the recorded verdict of the answer it finds in the prompt.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jsonForPrompt } from "../../src/verify/judge/bbq.ts";
import { postJson, startStack } from "../servers/_stack.ts";

type Row = Record<string, any>;
const DATA = join(import.meta.dir, "..", "..", "assets", "resources_servers", "bbq", "data");
const lines = (p: string): Row[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const recs = lines(join(DATA, "example_rollouts.jsonl"));
const rows = lines(join(DATA, "example.jsonl"));

const judge = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as any;
    const prompt: string = body.messages.at(-1).content;
    const rec = recs.find((r) => prompt.includes(jsonForPrompt(r.policy_response)));
    if (!rec) return new Response("no recorded verdict for this prompt", { status: 404 });
    const answer = String(body.response_format.json_schema.name).startsWith("bbq_answer_check");
    const content = JSON.stringify(answer ? rec.answer_judgment : rec.explanation_judgment);
    return Response.json({ id: "c", object: "chat.completion", created: 1, model: "gemma", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] });
  },
});
afterAll(() => judge.stop(true));

test("bbq example_rollouts: rewards and verdicts reproduce from the recorded judgments", async () => {
  const leaf = {
    judge_model_server: { type: "responses_api_models", name: "bbq_judge_model" },
    judge_chat_create_params: { messages: [], temperature: 0.0, seed: 42, max_tokens: 4096 },
    judge_max_attempts: 1,
  };
  await using s = await startStack([{ name: "bbq", serverType: "resources_servers", impl: "bbq", leaf }], { bbq_judge_model: { responses_api_models: { openai_model: { host: "127.0.0.1", port: judge.port } } } });
  expect(recs.length).toBe(5);
  let agree = 0;
  for (const rec of recs) {
    const row = rows.find((r) => r.expected_values.provenance_id === rec.provenance_id)!;
    expect(row).toBeDefined();
    const response = { id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: false, tool_choice: "auto", tools: [], output: [{ id: "m", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: rec.policy_response, annotations: [] }] }] };
    const r = await postJson(`${s.url.bbq}/verify`, { ...row, response });
    expect(r.status).toBe(200);
    expect([rec.provenance_id, r.json.reward, r.json.reward_answer, r.json.reward_explanation_quality]).toEqual([rec.provenance_id, rec.reward, rec.reward_answer, rec.reward_explanation_quality]);
    expect(r.json.answer_judgment).toEqual(rec.answer_judgment);
    expect(r.json.explanation_judgment).toEqual(rec.explanation_judgment);
    expect(r.json.model_response_text).toBe(rec.policy_response);
    agree++;
  }
  process.stderr.write(`reverify bbq/example_rollouts.jsonl: ${agree}/${recs.length} rows agree (judge verdicts replayed from the recorded parsed judgments)\n`);
}, 60_000);
