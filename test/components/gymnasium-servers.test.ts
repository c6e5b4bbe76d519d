/** The Gymnasium-style resources servers over loopback: /reset and /step wire shapes, upstream's 400s, bad input 422s, the base refused. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack(["blackjack", "grl_sokoban", "grl_tetris", "example_multi_turn_gymnasium"].map((impl) => ({ name: impl, serverType: "resources_servers" as const, impl })));
});
afterAll(async () => stack.stop());

const rcp = { input: [{ role: "user", content: "play" }] };
const said = (text: string) => ({ id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }] });

async function episode(server: string, row: Record<string, unknown>) {
  const reset = await postJson(`${stack.url[server]}/reset`, { responses_create_params: rcp, ...row });
  return { reset, step: (text: string) => postJson(`${stack.url[server]}/step`, { responses_create_params: rcp, response: said(text), ...row }, reset.cookies) };
}

test("grl_sokoban: a seeded reset gives upstream's board; a bare direction word is a move; no move is upstream's 400", async () => {
  const e = await episode("grl_sokoban", { seed: 84810, dim_room: [5, 5], num_boxes: 1 });
  expect(e.reset.status).toBe(200);
  expect(e.reset.json.observation).toStartWith("Sokoban board:\n");
  const moved = await e.step("I will go down");
  expect(moved.status).toBe(200);
  expect(moved.json.info.action_label).toBe("Down");
  expect(moved.json.info.total_reward).toBe(moved.json.reward);
  const bad = await e.step("no idea");
  expect(bad.status).toBe(400);
  expect(bad.json.detail).toContain("Unable to parse action from response: 'no idea'");
});

test("grl_tetris: several tags apply in order; none is upstream's 400; a step without reset is a 400", async () => {
  const e = await episode("grl_tetris", { seed: 60494, box_type: 3 });
  const r = await e.step("<action>Left</action><action>Down</action>");
  expect(r.status).toBe(200);
  expect(r.json.info.actions.map((a: { action_label: string }) => a.action_label)).toEqual(["Left", "Down"].slice(0, r.json.info.num_actions_applied));
  const none = await e.step("nothing");
  expect([none.status, none.json.detail]).toEqual([400, expect.stringContaining("No <action>Left|Right|Down</action> tags found")]);
  const fresh = await postJson(`${stack.url.grl_tetris}/step`, { responses_create_params: rcp, response: said("<action>Down</action>") });
  expect([fresh.status, fresh.json.detail]).toEqual([400, expect.stringContaining("Session not initialized")]);
});

test("a non-integer seed is a 400 naming the seed; a step without a response is a 422; there is no /verify", async () => {
  const r = await postJson(`${stack.url.grl_sokoban}/reset`, { responses_create_params: rcp, seed: "abc" });
  expect(r.status).toBe(400);
  expect(r.json.detail).toContain("seed must be an integer");
  const s = await postJson(`${stack.url.blackjack}/step`, { responses_create_params: rcp });
  expect(s.status).toBe(422);
  const v = await postJson(`${stack.url.blackjack}/verify`, { responses_create_params: rcp, response: said("x") });
  expect(v.status).toBe(404);
});

test("example_multi_turn_gymnasium: follow-ups first, then the expected answer graded case-insensitively", async () => {
  const e = await episode("example_multi_turn_gymnasium", { follow_ups: ["and then?"], expected_answer: "Eiffel" });
  const first = await e.step("Paris");
  expect([first.json.observation, first.json.terminated]).toEqual(["and then?", false]);
  const last = await e.step("the eiffel tower");
  expect([last.json.observation, last.json.reward, last.json.terminated]).toEqual([null, 1, true]);
});

test("blackjack: stand ends the hand with a result and its reward", async () => {
  const e = await episode("blackjack", {});
  expect(e.reset.json.observation).toMatch(/^Your hand: /);
  const r = await e.step("<action>stand</action>");
  expect(r.json.terminated).toBe(true);
  expect({ win: 1, draw: 0, loss: -1 }[r.json.info.result as "win"]).toBe(r.json.reward);
});

test("the gymnasium base class is refused by its config check, naming the servers built on it", async () => {
  const { component } = await import("../../src/components/resources/gymnasium-base.ts");
  expect(() => component.checkConfig!({ instanceName: "gymnasium", config: {} })).toThrow(/base class of Gymnasium-style servers/);
});
