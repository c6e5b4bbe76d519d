/**
 * End to end on loopback: an example row → environment server `POST /run` → simple_agent →
 * model (scripted_model, or openai_model in front of a scripted endpoint) and resources server →
 * a rewarded trajectory. Servers run in this process on real sockets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/tmp.ts";
import { postJson, startStack, type Stack, type StackEntry } from "../servers/_stack.ts";

type Obj = Record<string, any>;

const ASSETS = join(import.meta.dir, "..", "..", "assets", "resources_servers");
const rows = (name: string): Obj[] => readFileSync(join(ASSETS, name, "data", "example.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));

function servers(modelEntry: StackEntry): StackEntry[] {
  return [
    modelEntry,
    { name: "example_single_tool_call", serverType: "resources_servers", impl: "example_single_tool_call", leaf: { domain: "agent" } },
    { name: "example_session_state_mgmt", serverType: "resources_servers", impl: "example_session_state_mgmt", leaf: { domain: "agent" } },
    { name: "weather_agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "example_single_tool_call" }, model_server: { type: "responses_api_models", name: "policy_model" } } },
    { name: "counter_agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { resources_server: { type: "resources_servers", name: "example_session_state_mgmt" }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 5 } },
    { name: "session_agent", serverType: "responses_api_agents", impl: "simple_agent", leaf: { model_server: { type: "responses_api_models", name: "policy_model" } } },
    { name: "weather_agent__legacy_agent", serverType: "environment_servers", impl: "legacy_agent", leaf: { agent_server: { type: "responses_api_agents", name: "weather_agent" } } },
    { name: "counter_agent__legacy_agent", serverType: "environment_servers", impl: "legacy_agent", leaf: { agent_server: { type: "responses_api_agents", name: "counter_agent" } } },
    {
      name: "weather_turn_legacy",
      serverType: "environment_servers",
      impl: "single_agent_turn_legacy",
      leaf: { resources_server: { type: "resources_servers", name: "example_single_tool_call" }, agent_server: { type: "responses_api_agents", name: "session_agent" }, resources_tool_transports: ["direct_http"] },
    },
    {
      name: "counter_turn",
      serverType: "environment_servers",
      impl: "single_agent_turn",
      leaf: { resources_server: { type: "resources_servers", name: "example_session_state_mgmt" }, agent_server: { type: "responses_api_agents", name: "session_agent" }, resources_tool_transports: ["direct_http"] },
    },
    {
      name: "weather_turn",
      serverType: "environment_servers",
      impl: "single_agent_turn",
      leaf: { resources_server: { type: "resources_servers", name: "example_single_tool_call" }, agent_server: { type: "responses_api_agents", name: "session_agent" }, resources_tool_transports: ["direct_http"], max_concurrent_episodes: 2, queue_timeout_seconds: 30, cleanup_timeout_seconds: 10 },
    },
  ];
}

/** The trajectory shape the issue asks for: the function call, its output, the final message. */
function expectToolTrajectory(response: Obj): void {
  const types = response.output.map((o: Obj) => o.type);
  expect(types).toEqual(["function_call", "function_call_output", "message"]);
  const [call, out, msg] = response.output;
  expect(call.name).toBe("get_weather");
  expect(out.call_id).toBe(call.call_id);
  expect(JSON.parse(out.output)).toEqual({ city: "test", weather_description: "The weather in test is cold." });
  expect(msg.role).toBe("assistant");
}

describe("with scripted_model", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(servers({ name: "policy_model", serverType: "responses_api_models", impl: "scripted_model" }));
  });
  afterAll(async () => stack.stop());

  test("legacy_agent: an example row → rewarded trajectory with call, output and final message", async () => {
    const row = { ...rows("example_single_tool_call")[0], _ng_task_index: 0, _ng_rollout_index: 0, agent_ref: { name: "weather_agent" } };
    const r = await postJson(`${stack.url.weather_agent__legacy_agent}/run`, row);
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1);
    expectToolTrajectory(r.json.response);
    // The verify echo carries the full create params (nulls explicit, upstream defaults).
    expect(r.json.responses_create_params).toMatchObject({ tool_choice: "auto", parallel_tool_calls: true, temperature: null });
    expect(r.json.response.usage.total_tokens).toBeGreaterThan(0);
  });

  test("session state survives seed → tools → verify through the agent's cookie hand-off (all 5 rows)", async () => {
    for (const row of rows("example_session_state_mgmt")) {
      const r = await postJson(`${stack.url.counter_agent__legacy_agent}/run`, row);
      expect(r.status).toBe(200);
      // scripted_model calls increment_counter with count 0, so the counter stays at initial_count.
      expect(r.json.reward).toBe(row.expected_count === row.initial_count ? 1 : 0);
    }
  });

  test("single_agent_turn: native episode → result with flat verify fields, trajectory and reward", async () => {
    const row = rows("example_single_tool_call")[1]!;
    const req = { episode_id: { rollout_id: "1-0", attempt: 0 }, task: { task_id: { taskset: "example_single_tool_call", task_id: "1" }, task_input: { responses_create_params: row.responses_create_params, task_data: {} } } };
    const r = await postJson(`${stack.url.weather_turn}/run`, req);
    expect(r.status).toBe(200);
    expect(r.json.failure).toBeNull();
    expect(r.json.episode_id).toEqual(req.episode_id);
    expect(r.json.task_id).toEqual(req.task.task_id);
    expect(r.json.result.reward).toBe(1);
    expect(r.json.result.agent_timed_out).toBe(false);
    expectToolTrajectory(r.json.result.response);
    expect(r.json.result.ng_trajectory).toHaveLength(3);
  });

  test("single_agent_turn: session state travels through the handed-over tool access and the close answer's cookies", async () => {
    for (const [i, row] of rows("example_session_state_mgmt").entries()) {
      const { responses_create_params, ...taskData } = row;
      const req = { episode_id: { rollout_id: `c${i}`, attempt: 0 }, task: { task_id: { taskset: "counter", task_id: String(i) }, task_input: { responses_create_params, task_data: taskData } } };
      const r = await postJson(`${stack.url.counter_turn}/run`, req);
      expect(r.json.failure).toBeNull();
      expect(r.json.result.reward).toBe(row.expected_count === row.initial_count ? 1 : 0);
    }
  });

  test("single_agent_turn_legacy: a flat row in, the flat verify row out; a mismatched agent_ref is a 500", async () => {
    const row = { ...rows("example_single_tool_call")[3], _ng_task_index: 3, _ng_rollout_index: 1 };
    const r = await postJson(`${stack.url.weather_turn_legacy}/run`, row);
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1);
    expect(r.json.agent_ref).toEqual({ name: "session_agent" });
    expectToolTrajectory(r.json.response);
    const wrong = await postJson(`${stack.url.weather_turn_legacy}/run`, { ...row, agent_ref: { name: "someone_else" } });
    expect(wrong.status).toBe(500);
    expect(wrong.json).toContain("does not match configured agent server");
  });

  test("single_agent_turn: a verification failure is terminal and carries the agent's partial response and trajectory", async () => {
    const row = rows("example_session_state_mgmt")[0]!;
    // No expected_count in task_data: the resources server's /verify answers 422.
    const req = { episode_id: { rollout_id: "v-0", attempt: 0 }, task: { task_id: { taskset: "counter", task_id: "v" }, task_input: { responses_create_params: row.responses_create_params, task_data: { initial_count: 1 } } } };
    const r = await postJson(`${stack.url.counter_turn}/run`, req);
    expect(r.json.result).toBeNull();
    expect(r.json.failure).toMatchObject({ stage: "verification", terminal: true, cleanup_error: null });
    expect(r.json.failure.failure_reason).toContain("422");
    expect(r.json.failure.partial_response.output.at(-1).type).toBe("message");
    expect(r.json.failure.ng_trajectory.length).toBeGreaterThan(0);
  });

  test("single_agent_turn: bad episode requests are 422, a bad rollout id too", async () => {
    const bad = await postJson(`${stack.url.weather_turn}/run`, { episode_id: { rollout_id: "x", attempt: 0 }, task: { task_id: { taskset: "t", task_id: "1", revision: "r" }, task_input: { responses_create_params: { input: "x" } } } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ type: "extra_forbidden", loc: ["body", "task", "task_id", "revision"] });
    const badId = await postJson(`${stack.url.weather_turn}/run`, { episode_id: { rollout_id: "x-a2", attempt: 0 }, task: { task_id: { taskset: "t", task_id: "1" }, task_input: { responses_create_params: { input: "x" } } } });
    expect(badId.status).toBe(422);
  });

  test("agent and resources endpoints: malformed bodies → 422; a failing tool's body reaches the model; servers stay up", async () => {
    const noRcp = await postJson(`${stack.url.weather_agent}/run`, { foo: 1 });
    expect(noRcp.status).toBe(422);
    expect(noRcp.json.detail[0]).toMatchObject({ type: "missing", loc: ["body", "responses_create_params"] });
    const strict = await postJson(`${stack.url.weather_agent}/v1/responses`, { input: "x", nope: 1 });
    expect(strict.status).toBe(422);
    const tool = await postJson(`${stack.url.example_single_tool_call}/get_weather`, { town: "x" });
    expect(tool.status).toBe(422);
    expect(tool.json.detail[0]).toMatchObject({ type: "missing", loc: ["body", "city"] });
    expect(Object.keys(tool.cookies)).toContain("SimpleWeatherResourcesServer___example_single_tool_call");
    const verify = await postJson(`${stack.url.example_single_tool_call}/verify`, { response: {} });
    expect(verify.status).toBe(422);
    const counter = await postJson(`${stack.url.example_session_state_mgmt}/seed_session`, { initial_count: "many" });
    expect(counter.status).toBe(422);
    for (const name of ["weather_agent", "example_single_tool_call", "weather_turn", "policy_model"]) expect((await fetch(`${stack.url[name]}/`)).status).toBe(200);
  });
});

describe("with openai_model in front of a scripted_model endpoint", () => {
  let endpoint: Stack;
  let stack: Stack;
  beforeAll(async () => {
    endpoint = await startStack([{ name: "standalone", serverType: "responses_api_models", impl: "scripted_model" }]);
    stack = await startStack(servers({ name: "policy_model", serverType: "responses_api_models", impl: "openai_model", leaf: { openai_base_url: `${endpoint.url.standalone}/v1`, openai_api_key: "dummy", openai_model: "scripted_model" } }));
  });
  afterAll(async () => {
    await stack.stop();
    await endpoint.stop();
  });

  test("the same row through legacy_agent is rewarded with the same trajectory shape", async () => {
    const r = await postJson(`${stack.url.weather_agent__legacy_agent}/run`, rows("example_single_tool_call")[2]);
    expect(r.status).toBe(200);
    expect(r.json.reward).toBe(1);
    expectToolTrajectory(r.json.response);
    expect(r.json.response.model).toBe("scripted_model");
  });
});

describe("replay (D26): a recorded rollout is replayed turn by turn", () => {
  test("record with scripted answers, replay from the rollouts file: same trajectory, same reward; an unknown prompt is a 404 naming the closest rollout", async () => {
    await using dir = await tempDir();
    const rowsIn = rows("example_single_tool_call").slice(0, 2);
    const recorded: Obj[] = [];
    {
      await using live = await startStack(servers({ name: "policy_model", serverType: "responses_api_models", impl: "scripted_model" }));
      for (const [i, row] of rowsIn.entries()) {
        const r = await postJson(`${live.url.weather_agent__legacy_agent}/run`, row);
        recorded.push({ ...r.json, _ng_task_index: i, _ng_rollout_index: 0 });
      }
    }
    const file = join(dir.path, "rollouts.jsonl");
    await Bun.write(file, recorded.map((r) => JSON.stringify(r)).join("\n") + "\n");
    await using replay = await startStack(servers({ name: "policy_model", serverType: "responses_api_models", impl: "scripted_model", leaf: { replay_jsonl_fpath: file } }));
    for (const [i, row] of rowsIn.entries()) {
      const r = await postJson(`${replay.url.weather_agent__legacy_agent}/run`, row);
      expect(r.status).toBe(200);
      expect(r.json.reward).toBe(recorded[i]!.reward);
      // Model-produced items come back exactly as recorded (same call ids), tool outputs are recomputed identically.
      expect(r.json.response.output).toEqual(recorded[i]!.response.output);
    }
    const miss = await postJson(`${replay.url.policy_model}/v1/responses`, { input: [rowsIn[0]!.responses_create_params.input[0], { role: "user", content: "something never recorded" }] });
    expect(miss.status).toBe(404);
    expect(miss.json.detail).toContain("rollouts.jsonl");
    expect(miss.json.detail).toMatch(/closest is line [12] \(task [01], rollout 0\)/);
  });
});
