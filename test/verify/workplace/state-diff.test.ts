/**
 * WorkBench's verifier (`is_correct`): predicted and gold actions replayed on fresh tables, final
 * tables compared with `DataFrame.equals` after lowercasing all but status/list_name/board. Upstream's
 * verify tests plus the cases where pandas' equality decides: index labels, None vs NaN, case, order.
 */
import { describe, expect, test } from "bun:test";
import { replayActions, sameFinalState, tablesEqual } from "../../../src/verify/rules/workplace/state-diff.ts";
import { fromRecords } from "../../../src/verify/rules/workplace/table.ts";
import { stateWith } from "./_state.ts";

const a = (name: string, args: Record<string, unknown>) => ({ name, arguments: JSON.stringify(args) });
const fc = (name: string, args: Record<string, unknown>) => ({ type: "function_call", call_id: "c", id: "fc", status: "completed", ...a(name, args) });
const REPLY = a("email_reply_email", { email_id: "00000057", body: "Thanks for the update - I will get back to you tomorrow." });
const DEL = (id: string) => a("customer_relationship_manager_delete_customer", { customer_id: id });
const UPD = (id: string, field: string, v: unknown) => a("customer_relationship_manager_update_customer", { customer_id: id, field, new_value: v });
const SEND = (to: string, subject = "Hi", body = "b") => a("email_send_email", { recipient: to, subject, body });

// [name, predicted, gold, same final state?]
const CASES: [string, unknown[], unknown[], boolean][] = [
  // upstream test_verify and test_stateful_email_deletion_and_fetch
  ["the gold reply", [fc("email_reply_email", { email_id: "00000057", body: "Thanks for the update - I will get back to you tomorrow." })], [REPLY], true],
  ["delete then a read-only fetch", [fc("email_delete_email", { email_id: "00000146" }), fc("email_get_email_information_by_id", { email_id: "00000146", field: "email_id" })], [a("email_delete_email", { email_id: "00000146" }), a("email_get_email_information_by_id", { email_id: "00000146", field: "email_id" })], true],
  ["no action where the gold changes a table", [], [REPLY], false],
  ["read-only actions only, gold changes nothing", [a("email_search_emails", { query: "kofi" })], [], true],
  ["case differs in a lowercased column", [UPD("00000014", "customer_name", "CASEY wilson")], [UPD("00000014", "customer_name", "Casey Wilson")], true],
  ["case differs in status (kept as is) — the tool refuses 'lost' anyway", [UPD("00000014", "status", "lost")], [UPD("00000014", "status", "Lost")], false],
  ["task_name case is ignored", [a("project_management_update_task", { task_id: "00000149", field: "task_name", new_value: "X" })], [a("project_management_update_task", { task_id: "00000149", field: "task_name", new_value: "x" })], true],
  ["same deletions in another order", [DEL("00000009"), DEL("00000112")], [DEL("00000112"), DEL("00000009")], true],
  ["a missing deletion", [DEL("00000009")], [DEL("00000009"), DEL("00000112")], false],
  // ignore_index=True renumbers: delete-then-send and send-then-delete leave equal rows but different labels.
  ["send then delete vs delete then send (index labels differ)", [SEND("a@b.co"), a("email_delete_email", { email_id: "00000146" })], [a("email_delete_email", { email_id: "00000146" }), SEND("a@b.co")], false],
  ["two sends in another order", [SEND("a@b.co", "1"), SEND("c@d.co", "2")], [SEND("c@d.co", "2"), SEND("a@b.co", "1")], false],
  ["an action with bad JSON arguments is skipped", [{ name: "email_delete_email", arguments: "{not json" }], [], true],
  ["an unknown tool is skipped", [a("email_archive", { email_id: "00000146" })], [], true],
  ["an unexpected keyword makes the action fail", [a("email_delete_email", { email_id: "00000146", why: "x" })], [], true],
  ["non-dict arguments are skipped", [{ name: "email_delete_email", arguments: "[1]" }], [], true],
  // the verifier passes None through (the route drops it): notes=None is NaN where the default "" is ""
  ["add_customer notes None vs default ''", [a("customer_relationship_manager_add_customer", { customer_name: "D", assigned_to_email: "x@y.z", status: "Lead", notes: null })], [a("customer_relationship_manager_add_customer", { customer_name: "D", assigned_to_email: "x@y.z", status: "Lead" })], false],
  ["add_customer phone None vs missing (both NaN)", [a("customer_relationship_manager_add_customer", { customer_name: "D", assigned_to_email: "x@y.z", status: "Lead", customer_phone: null })], [a("customer_relationship_manager_add_customer", { customer_name: "D", assigned_to_email: "x@y.z", status: "Lead" })], true],
  // a non-str cell lowercases to NaN: an int duration never equals the gold's "30"
  ["an int where gold has a str", [a("calendar_update_event", { event_id: "00000013", field: "duration", new_value: 30 })], [a("calendar_update_event", { event_id: "00000013", field: "duration", new_value: "30" })], false],
  ["a plot with another end date", [a("analytics_create_plot", { time_min: "2023-11-30", time_max: "2024-06-30", value_to_plot: "total_visits", plot_type: "bar" })], [a("analytics_create_plot", { time_min: "2023-11-30", time_max: "2023-11-30", value_to_plot: "total_visits", plot_type: "bar" })], false],
];

describe("workplace verifier: final-state comparison", () => {
  const base = stateWith();
  test.each(CASES)("%s", (_name, predicted, gold, same) => expect(sameFinalState(base, predicted, gold)).toBe(same));

  test("a str ground truth iterates as characters, none of which is an action", () => {
    expect(sameFinalState(base, [], [..."email_delete_email"])).toBe(true);
    expect(sameFinalState(base, [REPLY], [..."x"])).toBe(false);
  });

  test("replays never touch the base state", () => {
    const before = base.emails;
    replayActions(base, [a("email_delete_email", { email_id: "00000146" })]);
    expect(base.emails).toBe(before);
  });

  test("tablesEqual: columns, index labels and cells (None ≡ NaN)", () => {
    const t = fromRecords([{ a: "X", status: "Won" }, { a: null, status: null }]);
    expect(tablesEqual(t, fromRecords([{ a: "x", status: "Won" }, { a: null, status: null }]))).toBe(true);
    expect(tablesEqual(t, fromRecords([{ a: "x", status: "won" }, { a: null, status: null }]))).toBe(false);
    expect(tablesEqual(t, { ...t, index: [0, 2] })).toBe(false);
    expect(tablesEqual(t, fromRecords([{ status: "Won", a: "X" }, { status: null, a: null }]))).toBe(false);
    expect(tablesEqual(t, fromRecords([{ a: "X", status: "Won" }]))).toBe(false);
  });

  test("a column with no str at all cannot be lowercased: pandas raises and so does the verifier", () => {
    const ints = fromRecords([{ a: 1 }, { a: 2 }]);
    expect(() => tablesEqual(ints, fromRecords([{ a: 1 }, { a: 2 }]))).toThrow("Can only use .str accessor with string values!");
  });
});
