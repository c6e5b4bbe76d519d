import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gradeMultiStep, synonymValue } from "../../src/components/resources/example-multi-step.ts";
import { postJson, startStack, type Stack } from "./_stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack([
    { name: "counter", serverType: "resources_servers", impl: "example_session_state_mgmt", leaf: { domain: "agent" } },
    { name: "weather", serverType: "resources_servers", impl: "example_single_tool_call", leaf: { domain: "agent" } },
  ]);
});
afterAll(async () => stack.stop());

const verifyBody = (extra: Record<string, unknown>) => ({ responses_create_params: { input: "x" }, response: { output: [] }, ...extra });

describe("legacy sessions (cookie-keyed state)", () => {
  test("seed → increment → read → verify in one session; another session does not see the state", async () => {
    const base = stack.url.counter!;
    const seed = await postJson(`${base}/seed_session`, { responses_create_params: { input: "x" }, initial_count: 4, other_field: true });
    expect(seed.status).toBe(200);
    expect(seed.json).toEqual({});
    const cookies = seed.cookies;
    expect(Object.keys(cookies)).toEqual(["StatefulCounterResourcesServer___counter"]);
    expect((await postJson(`${base}/increment_counter`, { count: 3 }, cookies)).json).toEqual({ success: true });
    expect((await postJson(`${base}/get_counter_value`, {}, cookies)).json).toEqual({ count: 7 });
    const v = await postJson(`${base}/verify`, verifyBody({ expected_count: 7 }), cookies);
    expect(v.json.reward).toBe(1);
    // Undeclared row fields are dropped; the create params come back fully populated.
    expect(v.json.expected_count).toBeUndefined();
    expect(v.json.responses_create_params).toMatchObject({ input: "x", tools: [], tool_choice: "auto", parallel_tool_calls: true, max_output_tokens: null });
    expect(v.json.response).toMatchObject({ output: [], usage: null, error: null, status: null });
    expect((await postJson(`${base}/verify`, verifyBody({ expected_count: 7 }))).json.reward).toBe(0);
  });
});

describe("native sessions (§7.2)", () => {
  const episode = { rollout_id: "3-1", attempt: 0 };
  const taskId = { taskset: "counter", task_id: "3" };

  test("seed echoes the caller's resources_session_id and sets a cookie; close ends the session", async () => {
    const base = stack.url.counter!;
    const seed = await postJson(`${base}/seed_session`, { resources_session_id: "rs-1", episode_id: episode, task_id: taskId, task_data: { initial_count: 2 } });
    expect(seed.json).toEqual({ resources_session_id: "rs-1" });
    expect(Object.keys(seed.cookies)).toHaveLength(1);
    await postJson(`${base}/increment_counter`, { count: 1 }, seed.cookies);
    expect((await postJson(`${base}/verify`, verifyBody({ expected_count: 3 }), seed.cookies)).json.reward).toBe(1);
    const other = await postJson(`${base}/seed_session`, { resources_session_id: "rs-1", episode_id: { rollout_id: "9", attempt: 0 }, task_id: taskId, task_data: { initial_count: 2 } });
    expect(other.status).toBe(409);
    expect((await postJson(`${base}/close_session`, { resources_session_id: "rs-1", episode_id: episode })).json).toEqual({ resources_session_id: "rs-1" });
    expect((await postJson(`${base}/increment_counter`, { count: 1 }, seed.cookies)).status).toBe(409);
  });

  test("a native seed with an unknown key or a bad task_id is a 422", async () => {
    const r = await postJson(`${stack.url.counter}/seed_session`, { episode_id: episode, task_id: { ...taskId, revision: "r" }, task_data: { initial_count: 1 } });
    expect(r.status).toBe(422);
    expect(r.json.detail[0].loc).toEqual(["body", "task_id", "revision"]);
  });
});

describe("other routes", () => {
  test("reverify_mode, aggregate_metrics, unknown route and method", async () => {
    expect(await (await fetch(`${stack.url.weather}/reverify_mode`)).json()).toBe("stateless");
    expect(await (await fetch(`${stack.url.counter}/reverify_mode`)).json()).toBe("unknown");
    const agg = await postJson(`${stack.url.weather}/aggregate_metrics`, { verify_responses: [{ reward: 1, _ng_task_index: 0, _ng_rollout_index: 0 }, { reward: 0, _ng_task_index: 0, _ng_rollout_index: 1 }] });
    expect(agg.status).toBe(200);
    expect(agg.json.agent_metrics["mean/reward"]).toBe(0.5);
    expect(Object.keys(agg.json)).toEqual(expect.arrayContaining(["group_level_metrics", "agent_metrics", "key_metrics"]));
    expect((await postJson(`${stack.url.weather}/no_such_tool`, {})).json).toEqual({ detail: "Not Found" });
    expect((await fetch(`${stack.url.weather}/get_weather`)).status).toBe(405);
  });
});

describe("example_single_tool_call verify", () => {
  test("always 1.0, as upstream: whether the model called get_weather or not", async () => {
    const url = `${stack.url.weather}/verify`;
    expect((await postJson(url, verifyBody({}))).json.reward).toBe(1);
    const called = { output: [{ type: "function_call", name: "get_weather", arguments: '{"city":"sf"}', call_id: "c1" }] };
    expect((await postJson(url, { ...verifyBody({}), response: called })).json.reward).toBe(1);
  });
});

describe("example_multi_step grading", () => {
  const call = (args: unknown) => ({ type: "function_call", name: "extract_synonym_values", arguments: JSON.stringify(args), call_id: "c" });
  const expected = [synonymValue("glad"), synonymValue("cheerful")];

  test("the last extract call is graded; order matters for accuracy, not for overlap", () => {
    expect(synonymValue("ab")).toBe(97 + 98);
    const right = gradeMultiStep({ expected_synonym_values: expected, minefield_label_value: synonymValue("happy"), response: { output: [call({ synonym_values: [1] }), call({ synonym_values: expected })] } });
    expect(right).toMatchObject({ reward: 1, accuracy: true, set_overlap: 1, order_instruction_following_failure: false, original_term_minefield_hit: false });
    const swapped = gradeMultiStep({ expected_synonym_values: expected, response: { output: [call({ synonym_values: [...expected].reverse() })] } });
    expect(swapped).toMatchObject({ reward: 0, accuracy: false, set_overlap: 1, order_instruction_following_failure: true });
    const mine = gradeMultiStep({ expected_synonym_values: expected, minefield_label_value: 5, response: { output: [call({ synonym_values: [5] })] } });
    expect(mine).toMatchObject({ reward: 0, set_overlap: 0, original_term_minefield_hit: true, parsed_synonym_values: [5] });
  });
});

describe("judge_failsafe", () => {
  test("a JudgeError in verify is a 200 with the request fields, reward 0 and the judge_failed marker; other errors stay 500s", async () => {
    const { resourcesServerApp, JudgeError } = await import("../../src/servers/resources.ts");
    const { serveApp } = await import("../../src/runtime/http/http.ts");
    const app = resourcesServerApp({
      className: "JudgeRS",
      instanceName: "judge_rs",
      verify: (body) => {
        if (body.mode === "judge") throw new JudgeError("judge endpoint timed out");
        throw new Error("bug");
      },
    });
    const server = serveApp(app, { host: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.port}/verify`;
      const r = await postJson(url, verifyBody({ mode: "judge", expected_answer: "4" }));
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ reward: 0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: "judge endpoint timed out", expected_answer: "4" });
      const bug = await postJson(url, verifyBody({ mode: "other" }));
      expect(bug.status).toBe(500);
      // repr(e) as upstream, its message naming the server so the collector can type it (D21).
      expect(bug.json).toBe("Error('JudgeRS___judge_rs: bug')");
    } finally {
      server.stop(true);
    }
  });
});
