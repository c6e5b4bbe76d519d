/** proof_refinement_agent: the verify-correction loop against a recording model and a scripted proof verifier (real loopback servers). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findBuiltin } from "../../src/components/registry.ts";
import { correctionInput, generationText } from "../../src/components/agents/proof-refinement-agent.ts";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Obj = Record<string, any>;
const modelCalls: Obj[] = [];
const verifyCalls: Obj[] = [];

const model = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as Obj;
    modelCalls.push(body);
    return Response.json({ id: "r", object: "response", created_at: 1, model: "m", output: [{ id: "m1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `proof v${modelCalls.length}`, annotations: [] }] }], parallel_tool_calls: true, tool_choice: "auto", tools: [] });
  },
});
/** Accepts "proof vN" once N reaches the row's `accept_at`; otherwise asks for a correction (unless `no_prompt`). */
const verifier = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const body = (await req.json()) as Obj;
    if (path === "/seed_session") return Response.json({});
    verifyCalls.push(body);
    const text = body.response.output[0].content[0].text as string;
    const n = Number(text.replace("proof v", ""));
    const good = n >= body.accept_at;
    return Response.json({ ...body, reward: good ? 1.0 : 0.0, proof_status: good ? "correct" : "wrong", needs_correction: !good, error_feedback: good ? null : `step ${n} is wrong`, correction_prompt: good || body.no_prompt ? null : `fix step ${n}` });
  },
});

let stack: Stack;
const leaf = (extra: Obj) => ({ resources_server: { type: "resources_servers", name: "res" }, model_server: { type: "responses_api_models", name: "policy" }, ...extra });
beforeAll(async () => {
  stack = await startStack(
    [
      { name: "agent", serverType: "responses_api_agents", impl: "proof_refinement_agent", leaf: leaf({ max_correction_turns: 2 }) },
      { name: "agent_lean", serverType: "responses_api_agents", impl: "proof_refinement_agent", leaf: leaf({ max_correction_turns: 2, include_all_attempts: false }) },
    ],
    { res: { resources_servers: { fake: { host: "127.0.0.1", port: verifier.port } } }, policy: { responses_api_models: { fake: { host: "127.0.0.1", port: model.port } } } },
  );
});
afterAll(async () => {
  await stack.stop();
  model.stop(true);
  verifier.stop(true);
});

const row = (extra: Obj) => ({ responses_create_params: { input: [{ role: "user", content: "Prove it." }], temperature: 0.6, top_p: 0.9, max_output_tokens: 99 }, ...extra });

describe("proof_refinement_agent", () => {
  const cases: { name: string; agent: string; extra: Obj; calls: number; reward: number; attempts: number | null }[] = [
    { name: "right first time: one turn", agent: "agent", extra: { accept_at: 1 }, calls: 1, reward: 1.0, attempts: 1 },
    { name: "corrected on the second turn", agent: "agent", extra: { accept_at: 2 }, calls: 2, reward: 1.0, attempts: 2 },
    { name: "max_correction_turns=2 stops after three attempts", agent: "agent", extra: { accept_at: 99 }, calls: 3, reward: 0.0, attempts: 3 },
    { name: "needs_correction without a prompt stops", agent: "agent", extra: { accept_at: 99, no_prompt: true }, calls: 1, reward: 0.0, attempts: 1 },
    { name: "include_all_attempts false → all_attempts null", agent: "agent_lean", extra: { accept_at: 2 }, calls: 2, reward: 1.0, attempts: null },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      modelCalls.length = 0;
      verifyCalls.length = 0;
      const r = await postJson(`${stack.url[c.agent]}/run`, row(c.extra));
      expect(r.status).toBe(200);
      expect(modelCalls).toHaveLength(c.calls);
      expect(r.json.reward).toBe(c.reward);
      expect(r.json.total_turns).toBe(c.calls);
      expect(verifyCalls.map((v) => v.turn_index)).toEqual([...Array(c.calls).keys()]);
      if (c.attempts === null) expect(r.json.all_attempts).toBeNull();
      else expect(r.json.all_attempts.map((a: Obj) => a.generation)).toEqual([...Array(c.attempts).keys()].map((i) => `proof v${i + 1}`));
    });
  }

  test("a correction turn sends only the correction prompt, with temperature and top_p kept", async () => {
    modelCalls.length = 0;
    const r = await postJson(`${stack.url.agent}/run`, row({ accept_at: 2 }));
    expect(modelCalls[1]).toMatchObject({ input: [{ role: "user", content: "fix step 1" }], temperature: 0.6, top_p: 0.9 });
    expect(modelCalls[1]!.max_output_tokens).toBeUndefined();
    expect(r.json.all_attempts[0]).toMatchObject({ turn_index: 0, proof_status: "wrong", reward: 0.0, error_feedback: "step 1 is wrong", correction_prompt: "fix step 1" });
  });

  test("/aggregate_metrics aggregates locally", async () => {
    const r = await postJson(`${stack.url.agent}/aggregate_metrics`, { verify_responses: [{ _ng_task_index: 0, _ng_rollout_index: 0, reward: 1.0, responses_create_params: {}, response: {} }, { _ng_task_index: 0, _ng_rollout_index: 1, reward: 0.0, responses_create_params: {}, response: {} }] });
    expect(r.status).toBe(200);
    expect(r.json.agent_metrics["mean/reward"]).toBe(0.5);
  });

  test("generationText and correctionInput follow upstream", () => {
    expect(generationText({ output: [{ type: "message", content: [{ type: "output_text", text: "a" }, { type: "output_text", text: "b" }] }, { type: "message", content: [{ type: "output_text", text: "c" }] }] })).toBe("c");
    expect(correctionInput({ temperature: 0.1, max_tokens: 5 }, "p")).toEqual({ input: [{ role: "user", content: "p" }], model: null, temperature: 0.1, max_tokens: 5 });
  });

  test("a negative max_correction_turns is a config error", async () => {
    const comp = (await findBuiltin("responses_api_agents", "proof_refinement_agent"))!;
    expect(() => comp.checkConfig!({ instanceName: "p", config: leaf({ max_correction_turns: -1 }) })).toThrow(/max_correction_turns/);
  });
});
