/**
 * WorkBench's tools over their tables: upstream's tests/test_app.py tool cases as data (each with the
 * table upstream mocked), then the pandas and Python behaviours the port reproduces on purpose.
 */
import { describe, expect, test } from "bun:test";
import { routeToolCall, WORKPLACE_TOOLS } from "../../../src/verify/rules/workplace/tools.ts";
import { type Mock, stateWith } from "./_state.ts";

type Case = [name: string, mock: Mock, tool: string, args: Record<string, unknown>, expected: unknown];

const E1 = { email_id: "00000393", "inbox/outbox": "inbox", "sender/recipient": "raj.patel@atlas.com", subject: "Update on Supply Chain", sent_datetime: "2023-10-01 13:11:52", body: "Dear Sam, I have some ideas..." };
const E2 = { email_id: "00000123", "inbox/outbox": "outbox", "sender/recipient": "test@example.com", subject: "Test Subject", sent_datetime: "2023-10-01 14:00:00", body: "This is a test body." };
const MATCH = { email_id: "match_01", "inbox/outbox": "inbox", "sender/recipient": "aisha.chen@atlas.com", subject: "Matching Email Subject", sent_datetime: "2025-09-01 10:00:00", body: "This is a test email from Aisha." };
const NO_MATCH = { email_id: "no_match_01", "inbox/outbox": "inbox", "sender/recipient": "another.user@example.com", subject: "Non-Matching Subject", sent_datetime: "2025-09-01 11:00:00", body: "This email should not be found." };
const EV1 = { event_id: "00000016", event_name: "sync up", participant_email: "santiago.martinez@atlas.com", event_start: "2023-12-12 12:00:00", duration: "90" };
const EV2 = { event_id: "00000017", event_name: "Team sync up", participant_email: "aisha.chen@atlas.com", event_start: "2023-12-13 10:00:00", duration: "30" };
const EV3 = { event_id: "00000018", event_name: "Project Deadline", participant_email: "sam@example.com", event_start: "2023-12-14 17:00:00", duration: "5" };
const T1 = { task_id: "00000149", task_name: "Add animation to carousel", assigned_to_email: "leila.azizi@atlas.com", list_name: "Backlog", due_date: "2023-11-27", board: "Front end" };
const T2 = { task_id: "00000151", task_name: "Fix alignment issue in profile page", assigned_to_email: "leila.azizi@atlas.com", list_name: "Backlog", due_date: "2023-11-27", board: "Front end" };
const T3 = { task_id: "00000999", task_name: "Irrelevant Task", assigned_to_email: "other@user.com", list_name: "Done", due_date: "2025-01-01", board: "Design" };
const JADEN = {
  customer_id: "00000052", assigned_to_email: "raj.patel@atlas.com", customer_name: "Jaden White", customer_email: "jaden.white@protracefoods", customer_phone: "724-857-2625",
  last_contact_date: "2023-11-30 23:59:00", product_interest: "Hardware", status: "Won", follow_up_by: "2023-12-13 23:59:00", notes: "2023-10-17: Had a call. ",
};
const visits = (date: string, n: number, extra: Record<string, unknown> = {}) => Array.from({ length: n }, () => ({ date_of_visit: date, user_engaged: "False", ...extra }));
const page1 = (key: string, n: number) => ({ [`total_${key}`]: n, page: 1, page_size: 5, total_pages: 1 });

// upstream tests/test_app.py: (mocked table, tool, body) → output.
const UPSTREAM: Case[] = [
  ["find_email_address", { directory: [{ email_address: "aisha.chen@atlas.com" }, { email_address: "carlos.rodriguez@atlas.com" }] }, "company_directory_find_email_address", { name: "aisha" }, ["aisha.chen@atlas.com"]],
  ["get_email_information_by_id", { emails: [E1, E2] }, "email_get_email_information_by_id", { email_id: "00000393", field: "inbox/outbox" }, { "inbox/outbox": "inbox" }],
  ["search_emails", { emails: [MATCH, NO_MATCH] }, "email_search_emails", { query: "aisha.chen@atlas.com" }, { emails: [MATCH], pagination: page1("emails", 1) }],
  ["send_email", { emails: [{ ...E1, email_id: "123" }] }, "email_send_email", { recipient: "aisha.chen@atlas.com", subject: "regarding something", body: "some body" }, "Email sent successfully."],
  ["delete_email", { emails: [E1, E2] }, "email_delete_email", { email_id: "00000393" }, "Email deleted successfully."],
  ["forward_email", { emails: [E1] }, "email_forward_email", { email_id: "00000393", recipient: "aisha.chen@atlas.com" }, "Email forwarded successfully."],
  ["get_event_information_by_id", { calendar: [{ ...EV1, event_id: "00000013" }] }, "calendar_get_event_information_by_id", { event_id: "00000013", field: "event_id" }, { event_id: "00000013" }],
  ["search_events", { calendar: [EV1, EV2, EV3] }, "calendar_search_events", { query: "sync up" }, { events: [EV2, EV1], pagination: page1("events", 2) }],
  ["delete_event", { calendar: [{ event_id: "00000013", event_name: "Event to Delete" }, { event_id: "00000014", event_name: "Another Event" }] }, "calendar_delete_event", { event_id: "00000013" }, "Event deleted successfully."],
  ["update_event", { calendar: [{ ...EV1, event_id: "00000013" }] }, "calendar_update_event", { event_id: "00000013", field: "duration", new_value: "100" }, "Event updated successfully."],
  ["engaged_users_count", { analytics: [{ date_of_visit: "2023-10-22", visitor_id: "0860", page_views: 8, session_duration_seconds: 4, traffic_source: "referral", user_engaged: false }] }, "analytics_engaged_users_count", { time_min: "2023-10-22", time_max: "2023-11-22" }, { "2023-10-22": 0 }],
  [
    "get_visitor_information_by_id",
    { analytics: [{ date_of_visit: "2023-10-22", visitor_id: "0860", page_views: "8", session_duration_seconds: "4", traffic_source: "referral", user_engaged: "False" }, { date_of_visit: "2023-11-22", visitor_id: "4426", page_views: "3", session_duration_seconds: "12", traffic_source: "direct", user_engaged: "True" }] },
    "analytics_get_visitor_information_by_id",
    { visitor_id: "0860" },
    [{ date_of_visit: "2023-10-22", visitor_id: "0860", page_views: "8", session_duration_seconds: "4", traffic_source: "referral", user_engaged: false }],
  ],
  ["create_plot", { analytics: visits("2023-10-22", 1) }, "analytics_create_plot", { time_min: "2023-10-22", time_max: "2023-10-22", value_to_plot: "total_visits", plot_type: "bar" }, "plots/2023-10-22_2023-10-22_total_visits_bar.png"],
  [
    "traffic_source_count",
    { analytics: [...visits("2023-10-22", 2, { traffic_source: "referral" }), ...visits("2023-10-22", 1, { traffic_source: "direct" }), ...visits("2023-10-23", 1, { traffic_source: "referral" })] },
    "analytics_traffic_source_count",
    { time_min: "2023-10-22", time_max: "2023-10-22", traffic_source: "referral" },
    { "2023-10-22": 2 },
  ],
  ["total_visits_count", { analytics: [...visits("2023-10-22", 13), ...visits("2023-10-23", 2)] }, "analytics_total_visits_count", { time_min: "2023-10-22", time_max: "2023-10-22" }, { "2023-10-22": 13 }],
  [
    "get_average_session_duration",
    { analytics: [...visits("2023-10-22", 12, { session_duration_seconds: "15" }), ...visits("2023-10-22", 1, { session_duration_seconds: "25" }), ...visits("2023-10-23", 1, { session_duration_seconds: "100" })] },
    "analytics_get_average_session_duration",
    { time_min: "2023-10-22", time_max: "2023-10-22" },
    { "2023-10-22": 15.76923076923077 },
  ],
  ["get_task_information_by_id", { tasks: [{ task_id: "00000149", task_name: "Test Task" }] }, "project_management_get_task_information_by_id", { task_id: "00000149", field: "task_id" }, { task_id: "00000149" }],
  ["search_tasks", { tasks: [T1, T2, T3] }, "project_management_search_tasks", { task_name: "", assigned_to_email: "leila.azizi@atlas.com", list_name: "Backlog", due_date: "2023-11-27", board: "Front end" }, [T1, T2]],
  ["create_task", { tasks: [{ task_id: "00000299", assigned_to_email: "leila.azizi@atlas.com", task_name: "Existing Task" }] }, "project_management_create_task", { ...T1, task_id: undefined }, "00000300"],
  ["delete_task", { tasks: [{ task_id: "00000149", task_name: "A task to delete" }] }, "project_management_delete_task", { task_id: "00000149" }, "Task deleted successfully."],
  ["update_task", { tasks: [{ task_id: "00000149", task_name: "Some Task", board: "Front end" }] }, "project_management_update_task", { task_id: "00000149", field: "board", new_value: "Design" }, "Task updated successfully."],
  [
    "search_customers",
    { crm: [JADEN, { customer_id: "00000999", customer_name: "Jane Doe" }] },
    "customer_relationship_manager_search_customers",
    { customer_name: "Jaden White", customer_email: "jaden.white@protracefoods", product_interest: "Hardware", status: "Won", assigned_to_email: "raj.patel@atlas.com", last_contact_date_min: "2023-11-30 23:59:00", last_contact_date_max: "2023-11-30 23:59:00", follow_up_by_min: "2023-12-13 23:5" },
    { customers: [JADEN], pagination: page1("customers", 1) },
  ],
  ["update_customer", { crm: [{ customer_id: "00000189", customer_name: "old name" }] }, "customer_relationship_manager_update_customer", { customer_id: "00000189", field: "customer_name", new_value: "new customer" }, "Customer updated successfully."],
  [
    "add_customer",
    { crm: [{ customer_id: "00000199", customer_name: "Max ID Customer" }] },
    "customer_relationship_manager_add_customer",
    { customer_name: "Some customer", product_interest: "Hardware", status: "Won", assigned_to_email: "raj.patel@atlas.com", last_contact_date: "2023-11-30 23:59:00", follow_up_by: "2023-12-13 23:59:00", notes: "some notes" },
    "00000200",
  ],
  ["delete_customer", { crm: [{ customer_id: "00000189", customer_name: "Customer to Delete" }] }, "customer_relationship_manager_delete_customer", { customer_id: "00000189" }, "Customer deleted successfully."],
  [
    "extra argument (TypeError text for the model)",
    { emails: [{ email_id: "00000057", "sender/recipient": "carlos.rodriguez@atlas.com", subject: "Task Update", body: "Just an update." }] },
    "email_get_email_information_by_id",
    { email_id: "00000057", field: "subject", useless_argument: "this should cause an error" },
    "Error executing tool 'email_get_email_information_by_id': EmailTool.get_email_information_by_id() got an unexpected keyword argument 'useless_argument'",
  ],
];

// Behaviours of upstream's pandas code that the port keeps on purpose, on the shipped tables.
const PANDAS: Case[] = [
  ["the query is a regex (str.contains)", {}, "company_directory_find_email_address", { name: "^(aisha|kofi)" }, ["aisha.chen@atlas.com", "kofi.mensah@atlas.com"]],
  ["a NaN cell in a searched column makes the mask raise", { crm: [{ customer_id: "00000001", customer_name: "A", customer_email: null }] }, "customer_relationship_manager_search_customers", { customer_email: "a" }, "Error executing tool 'customer_relationship_manager_search_customers': Cannot mask with non-boolean array containing NA / NaN values"],
  ["calendar search passes na=False, so NaN cells simply miss", { calendar: [{ ...EV1, participant_email: null }] }, "calendar_search_events", { query: "nobody" }, "No events found."],
  ["date bounds compare as strings: \"2023-11-28\" < \"2023-11-28T00\" drops that day", {}, "analytics_total_visits_count", { time_min: "2023-11-28T00", time_max: "2023-11-29" }, { "2023-11-29": 9 }],
  ["a non-str bound is a TypeError", {}, "analytics_total_visits_count", { time_min: 5 }, "Error executing tool 'analytics_total_visits_count': '>=' not supported between instances of 'str' and 'int'"],
  ["email search sorts latest first and pages (page clamps)", {}, "email_search_emails", { query: "kofi", page: 99, page_size: 25 }, null],
  ["email search by inclusive day bounds", { emails: [E1, E2, MATCH] }, "email_search_emails", { date_min: "2023-10-01", date_max: "2023-10-01" }, { emails: [E2, E1], pagination: page1("emails", 2) }],
  ["an unparseable time bound is answered, not raised", {}, "calendar_search_events", { time_min: "next tuesday-ish" }, "Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS."],
  ["month-name bounds parse (dateutil)", { calendar: [EV1, EV2, EV3] }, "calendar_search_events", { time_min: "December 13, 2023 9:00 AM" }, { events: [EV3, EV2], pagination: page1("events", 2) }],
  ["event ids must be 8 digits", {}, "calendar_delete_event", { event_id: "13" }, "Invalid event ID format. Expected 8-digit ID."],
  ["a float duration string is not an int", {}, "calendar_create_event", { event_name: "x", participant_email: "a@b.com", event_start: "2023-12-01 10:00:00", duration: "30.5" }, "Invalid duration format. Expected a number of minutes."],
  ["a zero duration is refused", {}, "calendar_create_event", { event_name: "x", participant_email: "a@b.com", event_start: "2023-12-01 10:00:00", duration: "0" }, "Duration must be a positive number of minutes."],
  ["int() takes surrounding whitespace", {}, "calendar_create_event", { event_name: "x", participant_email: "A@B.com", event_start: "2023-12-01 10:00:00", duration: " 30 " }, "00000300"],
  ["list names are case-sensitive", {}, "project_management_create_task", { ...T1, task_id: undefined, list_name: "backlog" }, "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'."],
  ["assignees must already be on the board", {}, "project_management_create_task", { ...T1, task_id: undefined, assigned_to_email: "new.person@atlas.com" }, "Assignee email not valid. Please choose from the list of team members."],
  ["search_tasks validates the email", {}, "project_management_search_tasks", { assigned_to_email: "not-an-email" }, "Invalid email format for assigned_to_email."],
  ["status values are case-sensitive", {}, "customer_relationship_manager_update_customer", { customer_id: "00000014", field: "status", new_value: "lost" }, "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"],
  ["unknown CRM field", {}, "customer_relationship_manager_update_customer", { customer_id: "00000014", field: "age", new_value: "3" }, "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'"],
  ["no search parameters", {}, "customer_relationship_manager_search_customers", {}, "No search parameters provided. Please provide at least one parameter."],
  ["a sent id is str(int(max) + 1), unpadded", { emails: [E1, E2] }, "email_send_email", { recipient: "a@b.co", subject: "s", body: "b" }, "Email sent successfully."],
  ["an invalid recipient", {}, "email_send_email", { recipient: "nobody", subject: "s", body: "b" }, "Invalid recipient email address."],
  ["a non-str recipient raises in the `in` test", {}, "email_send_email", { recipient: 5, subject: "s", body: "b" }, "Error executing tool 'email_send_email': argument of type 'int' is not iterable"],
  ["a missing name", {}, "company_directory_find_email_address", {}, "Name not provided."],
  ["an unknown tool is a KeyError", {}, "email_archive_email", {}, "Error executing tool 'email_archive_email': 'email_archive_email'"],
  ["None arguments are dropped before the call", {}, "calendar_search_events", { query: null, time_min: null, page_size: 1, time_max: "2023-08-01 09:00:00" }, null],
  ["plot value names are checked", {}, "analytics_create_plot", { time_min: "a", time_max: "b", value_to_plot: "visits", plot_type: "bar" }, "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'"],
];

describe("workplace tools: upstream tests/test_app.py cases", () => {
  test("27 tools are registered", () => expect(Object.keys(WORKPLACE_TOOLS).length).toBe(27));
  test.each(UPSTREAM)("%s", (_name, mock, tool, args, expected) => {
    const body = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
    expect(routeToolCall(stateWith(mock), tool, body)).toEqual(expected);
  });
});

describe("workplace tools: pandas and Python behaviours kept on purpose", () => {
  test.each(PANDAS.filter((c) => c[4] !== null))("%s", (_name, mock, tool, args, expected) => {
    const body = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
    expect(routeToolCall(stateWith(mock), tool, body)).toEqual(expected);
  });

  test("an invalid regex is a re.error answered to the model (message wording is ours)", () => {
    expect(routeToolCall(stateWith(), "company_directory_find_email_address", { name: "(" })).toMatch(/^Error executing tool 'company_directory_find_email_address': .*unterminated subpattern/);
  });

  test("email search: latest first, pages of page_size, an out-of-range page clamps to the last", () => {
    const r = routeToolCall(stateWith(), "email_search_emails", { query: "kofi", page: 99, page_size: 25 }) as any;
    expect(r.pagination).toEqual({ total_emails: 26, page: 2, page_size: 25, total_pages: 2 });
    expect(r.emails.length).toBe(1);
    const first = routeToolCall(stateWith(), "email_search_emails", { query: "KOFI" }) as any;
    const times = first.emails.map((e: any) => e.sent_datetime);
    expect(times).toEqual([...times].sort().reverse());
    expect(first.emails[0].email_id).toBe("00000259");
  });

  test("a sent email's id is the string max + 1 (no padding), with the fixed clock; a second send counts from it", () => {
    const s = stateWith({ emails: [E1, E2] });
    routeToolCall(s, "email_send_email", { recipient: "A@B.co", subject: "s", body: "b" });
    routeToolCall(s, "email_send_email", { recipient: "c@d.co", subject: "s", body: "b" });
    expect(s.emails.rows.map((r) => r.email_id)).toEqual(["00000393", "00000123", "394", "395"]);
    expect(s.emails.rows[2]).toMatchObject({ "sender/recipient": "a@b.co", "inbox/outbox": "outbox", sent_datetime: "2023-11-30 23:59:00" });
    expect(s.emails.index).toEqual([0, 1, 2, 3]);
  });

  test("reply and forward send RE:/FW: copies to the right address", () => {
    const s = stateWith({ emails: [E1] });
    expect(routeToolCall(s, "email_reply_email", { email_id: "00000393", body: "ok" })).toBe("Email replied successfully.");
    expect(routeToolCall(s, "email_forward_email", { email_id: "00000393", recipient: "X@Y.com" })).toBe("Email forwarded successfully.");
    expect(s.emails.rows.slice(1).map((r) => [r["sender/recipient"], r.subject, r.body])).toEqual([
      ["raj.patel@atlas.com", "RE: Update on Supply Chain", "ok"],
      ["x@y.com", "FW: Update on Supply Chain", "Dear Sam, I have some ideas..."],
    ]);
  });

  test("calendar: a created event gets zfill(8) of max + 1 and index label 0 (plain pd.concat)", () => {
    const s = stateWith({ calendar: [EV1, EV2] });
    expect(routeToolCall(s, "calendar_create_event", { event_name: "n", participant_email: "P@Q.com", event_start: "2023-12-01 10:00:00", duration: "30" })).toBe("00000018");
    expect(s.calendar.index).toEqual([0, 1, 0]);
    expect(s.calendar.rows[2]).toEqual({ event_id: "00000018", event_name: "n", participant_email: "p@q.com", event_start: "2023-12-01 10:00:00", duration: "30" });
    expect(routeToolCall(s, "calendar_update_event", { event_id: "00000018", field: "participant_email", new_value: "Z@Z.com" })).toBe("Event updated successfully.");
    expect(s.calendar.rows[2]!.participant_email).toBe("z@z.com");
  });

  test("a search with None arguments behaves as if they were not sent", () => {
    const r = routeToolCall(stateWith(), "calendar_search_events", { query: null, time_min: null, page_size: 1, time_max: "2023-08-01 09:00:00" }) as any;
    expect(r.events.length).toBe(1);
    expect(r.events[0].event_start).toBe("2023-08-01 09:00:00");
  });

  test("average session duration without bounds turns the session's column into floats (upstream mutates its table)", () => {
    const s = stateWith({ analytics: [...visits("2023-10-22", 1, { visitor_id: "1", session_duration_seconds: "4" })] });
    routeToolCall(s, "analytics_get_average_session_duration", { time_min: "2023-10-22" });
    expect((routeToolCall(s, "analytics_get_visitor_information_by_id", { visitor_id: "1" }) as any)[0].session_duration_seconds).toBe("4");
    routeToolCall(s, "analytics_get_average_session_duration", {});
    expect((routeToolCall(s, "analytics_get_visitor_information_by_id", { visitor_id: "1" }) as any)[0].session_duration_seconds).toBe(4);
  });

  test("the shipped tables load as upstream reads them", () => {
    const s = stateWith();
    expect([s.emails.rows.length, s.calendar.rows.length, s.analytics.rows.length, s.tasks.rows.length, s.crm.rows.length, s.directory.rows.length]).toEqual([500, 300, 1000, 300, 200, 20]);
    // empty CSV fields are NaN (null); user_engaged is a bool.
    expect(s.crm.rows.find((r) => r.customer_id === "00000014")!.customer_phone).toBeNull();
    expect(typeof s.analytics.rows[0]!.user_engaged).toBe("boolean");
    expect(s.plots.rows).toEqual([]);
  });
});
