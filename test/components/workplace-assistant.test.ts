/**
 * workplace_assistant over a real loopback server: per-session tables behind the catch-all tool route,
 * upstream's route-level cases (stateful deletion, the TypeError text for an extra argument), verify's
 * request/response shape, and bad input (unseeded or closed session, malformed bodies, unknown tools).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postJson, startStack, type Stack } from "../servers/_stack.ts";

type Cookies = Record<string, string>;
let stack: Stack;
let url: string;

beforeAll(async () => {
  stack = await startStack([{ name: "workplace_assistant", serverType: "resources_servers", impl: "workplace_assistant" }]);
  url = stack.url.workplace_assistant!;
});
afterAll(async () => {
  await stack.stop();
});

async function seed(): Promise<Cookies> {
  const r = await postJson(`${url}/seed_session`, { responses_create_params: { input: [] } });
  expect(r.status).toBe(200);
  return r.cookies;
}
const tool = async (c: Cookies, name: string, args: unknown) => postJson(`${url}/${name}`, args, c);

function verifyBody(output: unknown[], ground_truth: unknown, extra: Record<string, unknown> = {}) {
  return {
    responses_create_params: { input: [{ role: "user", content: "Reply to carlos" }] },
    response: { id: "resp", created_at: 0, model: "m", object: "response", output, parallel_tool_calls: false, tool_choice: "auto", tools: [] },
    ground_truth,
    category: "workplace_assistant_email",
    environment_name: "workplace_assistant",
    id: 0,
    ...extra,
  };
}
const ARGS = JSON.stringify({ email_id: "00000057", body: "Thanks for the update - I will get back to you tomorrow." });
const GOLD = [{ name: "email_reply_email", arguments: ARGS }];
const CALL = { type: "function_call", name: "email_reply_email", arguments: ARGS, call_id: "call_1", id: "fc_1", status: "completed" };

describe("workplace_assistant tool routes", () => {
  test("a seeded session reads and changes its own tables; another session keeps its copy", async () => {
    const a = await seed();
    const b = await seed();
    expect(a).not.toEqual(b);
    expect((await tool(a, "email_delete_email", { email_id: "00000146" })).json).toEqual({ output: "Email deleted successfully." });
    // upstream test_stateful_email_deletion_and_fetch, at the route level
    expect((await tool(a, "email_get_email_information_by_id", { email_id: "00000146", field: "email_id" })).json).toEqual({ output: "Email not found." });
    expect((await tool(b, "email_get_email_information_by_id", { email_id: "00000146", field: "email_id" })).json).toEqual({ output: { email_id: "00000146" } });
    // re-seeding resets the session's tables
    await postJson(`${url}/seed_session`, {}, a);
    expect((await tool(a, "email_get_email_information_by_id", { email_id: "00000146", field: "email_id" })).json).toEqual({ output: { email_id: "00000146" } });
  });

  test("tool results keep upstream's JSON shape (lists, dicts, NaN as null)", async () => {
    const c = await seed();
    expect((await tool(c, "company_directory_find_email_address", { name: "Nadia" })).text).toBe('{"output":["nadia.moreau@atlas.com"]}');
    const r = await tool(c, "customer_relationship_manager_search_customers", { customer_name: "Casey Wilson", page: 1, page_size: 1 });
    expect(r.json.output.customers[0]).toMatchObject({ customer_id: "00000014", customer_phone: null });
    expect((await tool(c, "customer_relationship_manager_add_customer", { customer_name: "Dakota Thomas", assigned_to_email: "nadia.moreau@atlas.com", status: "Lead" })).json).toEqual({ output: "00000200" });
  });

  test("a tool's Python exception is answered as text (extra argument, unknown tool, bad types)", async () => {
    const c = await seed();
    const extra = await tool(c, "email_get_email_information_by_id", { email_id: "00000057", field: "subject", useless_argument: "this should cause an error" });
    expect(extra.status).toBe(200);
    expect(extra.json.output).toContain("get_email_information_by_id': EmailTool.get_email_information_by_id() got an unexpected keyword argument 'useless_argument'");
    expect((await tool(c, "email_archive_email", {})).json).toEqual({ output: "Error executing tool 'email_archive_email': 'email_archive_email'" });
    expect((await tool(c, "calendar_search_events", { query: "x", page: "two" })).json.output).toStartWith("Error executing tool 'calendar_search_events': ");
    expect((await tool(c, "email_send_email", { recipient: 7, subject: "s", body: "b" })).json.output).toBe("Error executing tool 'email_send_email': argument of type 'int' is not iterable");
  });

  test("bad input: an unseeded or closed session is a 400; a non-object or unparsable body is refused; nothing changes", async () => {
    const none = await tool({}, "email_delete_email", { email_id: "00000146" });
    expect(none.status).toBe(400);
    expect(none.json.detail).toBe("Session not initialized. Please call seed_session first.");
    const c = await seed();
    expect((await tool(c, "email_delete_email", [1, 2])).status).toBe(422);
    const raw = await fetch(`${url}/email_delete_email`, { method: "POST", headers: { "content-type": "application/json", cookie: Object.entries(c).map(([k, v]) => `${k}=${v}`).join("; ") }, body: "{nope" });
    expect(raw.status).toBeGreaterThanOrEqual(400);
    expect(raw.status).toBeLessThan(500);
    expect((await tool(c, "email_get_email_information_by_id", { email_id: "00000146", field: "email_id" })).json).toEqual({ output: { email_id: "00000146" } });
  });

  test("a natively seeded session's tables go away with /close_session", async () => {
    const EP = { rollout_id: "r1", attempt: 0 };
    const s = await postJson(`${url}/seed_session`, { episode_id: EP, task_id: { taskset: "workplace", task_id: "t1" }, task_data: {} });
    expect(s.status).toBe(200);
    const c = s.cookies;
    expect((await tool(c, "email_delete_email", { email_id: "00000146" })).json).toEqual({ output: "Email deleted successfully." });
    expect((await postJson(`${url}/close_session`, { resources_session_id: s.json.resources_session_id, episode_id: EP }, c)).status).toBe(200);
    const after = await tool(c, "email_delete_email", { email_id: "00000147" });
    expect(after.status).toBe(400);
    expect(after.json.detail).toBe("Session not initialized. Please call seed_session first.");
  });
});

describe("workplace_assistant /verify", () => {
  test("upstream test_verify: the gold reply scores 1; no action scores 0; the request fields are echoed", async () => {
    const ok = await postJson(`${url}/verify`, verifyBody([CALL], GOLD, { id: "0" }));
    expect(ok.status).toBe(200);
    expect(ok.json.reward).toBe(1);
    expect(ok.json).toMatchObject({ ground_truth: GOLD, category: "workplace_assistant_email", environment_name: "workplace_assistant", id: 0 });
    expect(ok.json.extra_field).toBeUndefined();
    const none = await postJson(`${url}/verify`, verifyBody([{ type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] }], GOLD));
    expect(none.json.reward).toBe(0);
  });

  test("verify is stateless: it ignores what the session's tools did", async () => {
    const c = await seed();
    await tool(c, "email_reply_email", JSON.parse(ARGS));
    expect((await postJson(`${url}/verify`, verifyBody([], GOLD), c)).json.reward).toBe(0);
    expect(await (await fetch(`${url}/reverify_mode`)).json()).toBe("stateless");
  });

  test("bad input: missing or mistyped fields are 422s", async () => {
    const { ground_truth: _g, ...noGold } = verifyBody([CALL], GOLD);
    expect((await postJson(`${url}/verify`, noGold)).status).toBe(422);
    expect((await postJson(`${url}/verify`, verifyBody([CALL], [{ name: "x", arguments: { a: 1 } }]))).status).toBe(422);
    expect((await postJson(`${url}/verify`, verifyBody([CALL], GOLD, { id: "zero" }))).status).toBe(422);
    expect((await postJson(`${url}/verify`, verifyBody([CALL], GOLD, { category: undefined }))).status).toBe(422);
  });
});
