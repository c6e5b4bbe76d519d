/** Upstream tests/test_common_tools.py as tables: send_message's recipient/sender/storage rules and get_messages' filters. */
import { describe, expect, test } from "bun:test";
import { run } from "./_run.ts";

const LIST_ENV = () => ({
  current_user: { email: "alice@example.com", name: "Alice" },
  messages: [{ from: "bob@example.com", to: "alice@example.com", subject: "Hello", body: "Hi Alice", timestamp: "2025-01-01T00:00:00" }],
});
const DICT_ENV = () => ({
  current_user: { email: "alice@example.com", name: "Alice" },
  messages: {
    "MSG-001": { message_id: "MSG-001", from: "bob@example.com", to: "alice@example.com", subject: "Hello", body: "Hi Alice", case_id: "CASE-42", is_read: true },
    "MSG-002": { message_id: "MSG-002", from: "carol@example.com", to: "alice@example.com", subject: "Update", body: "Status update", case_id: "CASE-99", is_read: false },
  },
});

describe("send_message", () => {
  // [case, env, args, returned text, the stored message's expected fields]
  const cases: [string, () => any, Record<string, unknown>, string, Record<string, unknown>][] = [
    ["recipient (healthcare)", LIST_ENV, { recipient: "dr.smith@hospital.com", subject: "Lab results", body: "Please review." }, "Message sent to dr.smith@hospital.com.", { to: "dr.smith@hospital.com", subject: "Lab results", body: "Please review.", from: "alice@example.com", timestamp: "sent" }],
    ["to (education, insurance, IT, legal)", LIST_ENV, { to: "teacher@school.edu", subject: "Grades", body: "Attached." }, "Message sent to teacher@school.edu.", { to: "teacher@school.edu" }],
    ["recipients list (real estate)", LIST_ENV, { recipients: ["agent1@realty.com", "agent2@realty.com"], subject: "Showing", body: "x" }, "Message sent to agent1@realty.com, agent2@realty.com.", { to: "agent1@realty.com, agent2@realty.com" }],
    ["explicit from_ wins", LIST_ENV, { from_: "override@example.com", to: "someone@example.com", subject: "Test", body: "Body" }, "Message sent to someone@example.com.", { from: "override@example.com" }],
    ["sender from current_user email", LIST_ENV, { to: "someone@example.com", subject: "Hi", body: "Hey" }, "Message sent to someone@example.com.", { from: "alice@example.com" }],
    ["sender from current_user name", () => ({ current_user: { name: "Bob" }, messages: [] }), { to: "someone@example.com", subject: "Hi", body: "Hey" }, "Message sent to someone@example.com.", { from: "Bob" }],
    ["no recipient: unknown", LIST_ENV, { subject: "S" }, "Message sent to unknown.", { to: "unknown", body: "" }],
    ["case_id kept", LIST_ENV, { to: "lawyer@firm.com", subject: "S", body: "B", case_id: "CASE-123" }, "Message sent to lawyer@firm.com.", { case_id: "CASE-123" }],
    ["related_claim_id kept", LIST_ENV, { to: "adjuster@ins.com", subject: "S", body: "B", related_claim_id: "CLM-456" }, "Message sent to adjuster@ins.com.", { related_claim_id: "CLM-456" }],
  ];
  test.each(cases)("%s", (_n, mk, args, text, fields) => {
    const env = mk();
    const before = env.messages.length;
    expect(run(env, "send_message", args)).toBe(text);
    expect(env.messages).toHaveLength(before + 1);
    expect(env.messages.at(-1)).toMatchObject(fields);
  });

  test("dict-backed messages get a generated MSG-xxxxxx key that is also the message_id", () => {
    const env = DICT_ENV();
    run(env, "send_message", { to: "x@example.com", subject: "S", body: "B" });
    const added = Object.keys(env.messages).filter((k) => !["MSG-001", "MSG-002"].includes(k));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^MSG-[0-9A-F]{6}$/);
    expect((env.messages as any)[added[0]!].message_id).toBe(added[0]);
  });

  test("no messages key: a list is created", () => {
    const env: any = { current_user: { email: "a@b.com" } };
    run(env, "send_message", { to: "x@example.com", subject: "S", body: "B" });
    expect(env.messages).toEqual([{ from: "a@b.com", to: "x@example.com", subject: "S", body: "B", timestamp: "sent" }]);
  });
});

describe("get_messages", () => {
  // [case, env, filters, expected subjects]
  const cases: [string, () => any, Record<string, unknown>, string[]][] = [
    ["list: all", LIST_ENV, {}, ["Hello"]],
    ["empty list", () => ({ messages: [] }), {}, []],
    ["missing key", () => ({}), {}, []],
    ["dict: all as a list", DICT_ENV, {}, ["Hello", "Update"]],
    ["case_id", DICT_ENV, { case_id: "CASE-42" }, ["Hello"]],
    ["from_", DICT_ENV, { from_: "carol@example.com" }, ["Update"]],
    ["from_ case-insensitive", DICT_ENV, { from_: "BOB@EXAMPLE.COM" }, ["Hello"]],
    ["to", DICT_ENV, { to: "alice@example.com" }, ["Hello", "Update"]],
    ["is_read true", DICT_ENV, { is_read: true }, ["Hello"]],
    ["is_read false", DICT_ENV, { is_read: false }, ["Update"]],
    ["combined", DICT_ENV, { case_id: "CASE-42", is_read: true }, ["Hello"]],
    ["no matches", DICT_ENV, { case_id: "CASE-NONE" }, []],
  ];
  test.each(cases)("%s", (_n, mk, filters, subjects) => {
    const env = mk();
    const out = run(env, "get_messages", filters);
    expect(out.map((m: any) => m.subject)).toEqual(subjects);
    // The answer is a new list: appending to it leaves the store alone.
    out.push({ extra: true });
    expect(Array.isArray(env.messages) ? env.messages.length : Object.keys(env.messages ?? {}).length).toBe(mk().messages ? (Array.isArray(mk().messages) ? mk().messages.length : 2) : 0);
  });
});
