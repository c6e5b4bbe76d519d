/** Legal domain tools: billing, cases, court schedules, document filings, messages. */
import { getMessages, sendMessage } from "./common.ts";
import { type Env, field, got, has, lower, newId, PyError, pyTypeName, s, setDefault, type ToolDef, tool, truthy, values } from "./tool-kit.ts";

/** Python `a < b` for the date strings the filters compare (str vs non-str is a TypeError). */
function lt(x: unknown, y: unknown): boolean {
  if (typeof x !== "string" || typeof y !== "string") throw new PyError("TypeError", `'<' not supported between instances of '${pyTypeName(x)}' and '${pyTypeName(y)}'`);
  return x < y;
}

/** `hours * rate` (numbers multiply; Python would repeat a string, which upstream never relies on). */
function times(x: unknown, y: unknown): number {
  if (typeof x !== "number" || typeof y !== "number") throw new PyError("TypeError", `unsupported operand type(s) for *: '${pyTypeName(x)}' and '${pyTypeName(y)}'`);
  return x * y;
}

/** The legal tools. */
export const LEGAL_TOOLS: ToolDef[] = [
  tool("add_billing_entry", ["case_id", "date", "description", "hours", "rate"], ["billable", "attorney"], true, (env: Env, a) => {
    const id = newId("BL-");
    const entry: Record<string, unknown> = {
      billing_id: id, case_id: a.case_id, date: a.date, description: a.description, hours: a.hours, rate: a.rate,
      amount: times(a.hours, a.rate), billable: a.billable ?? true,
    };
    if (truthy(a.attorney)) entry.attorney = a.attorney;
    setDefault(env, "billing_records", {})[id] = entry;
    return `Billing entry ${id} added for case ${s(a.case_id)}.`;
  }),
  tool("get_billing_report", [], ["case_id", "start_date", "end_date", "billable"], true, (env, a) =>
    values(got(env, "billing_records", {})).filter(
      (e) =>
        !(truthy(a.case_id) && e?.case_id !== a.case_id) &&
        !(truthy(a.start_date) && lt(field(e, "date"), a.start_date)) &&
        !(truthy(a.end_date) && lt(a.end_date, field(e, "date"))) &&
        !(a.billable !== undefined && e?.billable !== a.billable),
    ),
  ),
  tool("search_cases", [], ["client_name", "case_type", "status"], true, (env, a) =>
    values(got(env, "case_files", {})).filter(
      (c) =>
        !(truthy(a.client_name) && !lower(field(c, "client_name")).includes(lower(a.client_name))) &&
        !(truthy(a.case_type) && lower(a.case_type) !== lower(field(c, "case_type"))) &&
        !(truthy(a.status) && lower(a.status) !== lower(field(c, "status"))),
    ),
  ),
  tool("get_case_file", ["case_id"], [], false, (env, a) => {
    const c = got(env, "case_files", {});
    return has(c, a.case_id) ? c[a.case_id] : { error: `Case ${s(a.case_id)} not found.` };
  }),
  tool("update_case_notes", ["case_id", "notes"], [], false, (env, a) => {
    const c = got(env, "case_files", {});
    if (!has(c, a.case_id)) return `Error: Case ${s(a.case_id)} not found.`;
    c[a.case_id].notes = a.notes;
    return `Case ${s(a.case_id)} notes updated.`;
  }),
  sendMessage,
  getMessages,
  tool("get_court_schedule", ["schedule_id"], [], false, (env, a) => {
    const c = got(env, "court_schedules", {});
    return has(c, a.schedule_id) ? c[a.schedule_id] : { error: `Schedule ${s(a.schedule_id)} not found.` };
  }),
  tool("search_schedules", [], ["case_id", "start_date", "end_date", "hearing_type"], true, (env, a) =>
    values(got(env, "court_schedules", {})).filter(
      (x) =>
        !(truthy(a.case_id) && x?.case_id !== a.case_id) &&
        !(truthy(a.start_date) && lt(field(x, "scheduled_date"), a.start_date)) &&
        !(truthy(a.end_date) && lt(a.end_date, field(x, "scheduled_date"))) &&
        !(truthy(a.hearing_type) && lower(a.hearing_type) !== lower(field(x, "hearing_type"))),
    ),
  ),
  tool("update_schedule_location", ["schedule_id"], ["location", "notes"], false, (env, a) => {
    const c = got(env, "court_schedules", {});
    if (!has(c, a.schedule_id)) return `Error: Schedule ${s(a.schedule_id)} not found.`;
    if (a.location !== undefined) c[a.schedule_id].location = a.location;
    if (a.notes !== undefined) c[a.schedule_id].notes = a.notes;
    return `Schedule ${s(a.schedule_id)} updated.`;
  }),
  tool("create_document_filing", ["case_id", "document_type", "title", "filing_date", "court_name", "file_path"], ["served_parties", "notes"], true, (env, a) => {
    const id = newId("DF-");
    const filing: Record<string, unknown> = {
      filing_id: id, case_id: a.case_id, document_type: a.document_type, title: a.title, filing_date: a.filing_date,
      court_name: a.court_name, file_path: a.file_path, served_parties: truthy(a.served_parties) ? a.served_parties : [],
    };
    if (truthy(a.notes)) filing.notes = a.notes;
    setDefault(env, "document_filings", {})[id] = filing;
    return `Document filing ${id} created for case ${s(a.case_id)}.`;
  }),
  tool("get_document_filing", ["filing_id"], [], false, (env, a) => {
    const f = got(env, "document_filings", {});
    return has(f, a.filing_id) ? f[a.filing_id] : { error: `Filing ${s(a.filing_id)} not found.` };
  }),
];
