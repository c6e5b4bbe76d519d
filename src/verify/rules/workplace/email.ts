/**
 * WorkBench's email tools (EmailTool): look up, search, send, delete, forward, reply over the emails
 * table. Sent mail gets `str(int(max(email_id)) + 1)` as its id (no zero padding, and the max is a
 * string max, as upstream) and the fixed clock 2023-11-30 23:59:00; recipients are lowercased.
 */
import { pySplit } from "../../../util/py-str.ts";
import { paginate, pySlice } from "./paging.ts";
import { fstr, hashable, lower, pyIn, PyError, truthy } from "./py-ops.ts";
import { appendRow, columnHas, filterRows, intOfMax, records } from "./table.ts";
import { compareStamps, dayOf, pdTimestamp } from "./timestamp.ts";
import type { ToolDef, WorkplaceState } from "./tool-def.ts";

/** str(pd.to_datetime("2023-11-30T23:59:00")): the environment's fixed "now". */
export const HARDCODED_CURRENT_TIME = "2023-11-30 23:59:00";

const OWNER = "EmailTool";

function send(state: WorkplaceState, recipient: unknown, subject: unknown, body: unknown): string {
  if (!truthy(recipient) || !truthy(subject) || !truthy(body)) return "Recipient, subject, or body not provided.";
  if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
  const to = lower(recipient);
  const id = state.emails.rows.length > 0 ? String(intOfMax(state.emails, "email_id") + 1) : "1";
  const row = { email_id: id, "inbox/outbox": "outbox", "sender/recipient": to, subject, sent_datetime: HARDCODED_CURRENT_TIME, body };
  state.emails = appendRow(state.emails, row, true);
  return "Email sent successfully.";
}

function findEmail(state: WorkplaceState, id: unknown): Record<string, unknown> | undefined {
  return records(filterRows(state.emails, (r) => r.email_id === id))[0];
}

/** The email tools by their public name. */
export const EMAIL_TOOLS: Record<string, ToolDef> = {
  email_get_email_information_by_id: {
    owner: OWNER,
    method: "get_email_information_by_id",
    params: { email_id: undefined, field: undefined },
    run(state, { email_id, field }) {
      if (!truthy(email_id)) return "Email ID not provided.";
      if (!truthy(field)) return "Field not provided.";
      try {
        const email = findEmail(state, email_id);
        if (!email) return "Email not found.";
        if (typeof hashable(field) === "string" && Object.hasOwn(email, field as string)) return { [field as string]: email[field as string] };
        return `Field '${fstr(field)}' not found. Available fields: ${Object.keys(email).join(", ")}`;
      } catch (e) {
        return `Error retrieving email information: ${(e as Error).message}`;
      }
    },
  },
  email_search_emails: {
    owner: OWNER,
    method: "search_emails",
    params: { query: "", date_min: undefined, date_max: undefined, page: 1, page_size: 5 },
    run(state, { query, date_min, date_max, page, page_size }) {
      try {
        const words = pySplit(lower(query));
        const hit = filterRows(state.emails, (r) => {
          const combined = `${fstr(r.subject)} ${fstr(r.body)} ${fstr(r["sender/recipient"])}`.toLowerCase();
          return words.every((w) => combined.includes(w));
        });
        // sort_values(descending) on the parsed times; pandas' descending argsort keeps ties in table order.
        const stamped = records(hit).map((e) => ({ e, t: pdTimestamp(e.sent_datetime) }));
        stamped.sort((a, b) => (a.t === null || b.t === null ? (a.t === null ? (b.t === null ? 0 : 1) : -1) : compareStamps(b.t, a.t)));
        let emails = stamped.map((x) => x.e);
        const day = (v: unknown) => {
          const t = pdTimestamp(v);
          // NaT.date() is NaT, which a date comparison refuses.
          if (t === null) throw new PyError("TypeError", "'>=' not supported between instances of 'datetime.date' and 'NaTType'");
          return dayOf(t);
        };
        if (truthy(date_min)) emails = emails.filter((e) => day(e.sent_datetime) >= day(date_min));
        if (truthy(date_max)) emails = emails.filter((e) => day(e.sent_datetime) <= day(date_max));
        const pg = paginate(emails.length, page, page_size);
        if (emails.length === 0) return "No emails found.";
        return { emails: pySlice(emails, pg.start, pg.end), pagination: { total_emails: emails.length, page: pg.page, page_size: pg.size, total_pages: pg.totalPages } };
      } catch (e) {
        return `Error searching emails: ${(e as Error).message}`;
      }
    },
  },
  email_send_email: {
    owner: OWNER,
    method: "send_email",
    params: { recipient: undefined, subject: undefined, body: undefined },
    run(state, { recipient, subject, body }) {
      if (!truthy(recipient) || !truthy(subject) || !truthy(body)) return "Recipient, subject, or body not provided.";
      if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
      try {
        return send(state, recipient, subject, body);
      } catch (e) {
        return `Error sending email: ${(e as Error).message}`;
      }
    },
  },
  email_delete_email: {
    owner: OWNER,
    method: "delete_email",
    params: { email_id: undefined },
    run(state, { email_id }) {
      if (!truthy(email_id)) return "Email ID not provided.";
      if (!columnHas(state.emails, "email_id", email_id)) return "Email not found.";
      state.emails = filterRows(state.emails, (r) => r.email_id !== email_id);
      return "Email deleted successfully.";
    },
  },
  email_forward_email: {
    owner: OWNER,
    method: "forward_email",
    params: { email_id: undefined, recipient: undefined },
    run(state, { email_id, recipient }) {
      if (!truthy(email_id) || !truthy(recipient)) return "Email ID or recipient not provided.";
      if (!pyIn("@", recipient) || !pyIn(".", recipient)) return "Invalid recipient email address.";
      try {
        if (!columnHas(state.emails, "email_id", email_id)) return "Email not found.";
        const to = lower(recipient);
        const email = findEmail(state, email_id)!;
        const result = send(state, to, `FW: ${fstr(email.subject)}`, email.body);
        return result.includes("Error") || result.includes("Invalid") ? result : "Email forwarded successfully.";
      } catch (e) {
        return `Error forwarding email: ${(e as Error).message}`;
      }
    },
  },
  email_reply_email: {
    owner: OWNER,
    method: "reply_email",
    params: { email_id: undefined, body: undefined },
    run(state, { email_id, body }) {
      if (!truthy(email_id) || !truthy(body)) return "Email ID or body not provided.";
      try {
        if (!columnHas(state.emails, "email_id", email_id)) return "Email not found.";
        const email = findEmail(state, email_id)!;
        const result = send(state, email["sender/recipient"], `RE: ${fstr(email.subject)}`, body);
        return result.includes("Error") || result.includes("Invalid") ? result : "Email replied successfully.";
      } catch (e) {
        return `Error replying to email: ${(e as Error).message}`;
      }
    },
  },
};
