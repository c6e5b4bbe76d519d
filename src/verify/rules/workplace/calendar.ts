/**
 * WorkBench's calendar tools (CalendarTool). Event ids are 8-digit strings; a created event takes
 * `zfill(8)` of the string max + 1 and, because upstream appends with a plain `pd.concat`, the index
 * label 0 (which the verifier's `DataFrame.equals` sees). Search matches the query as a
 * case-insensitive regex in the name or participant and sorts by start, latest first (stable).
 */
import { pyInt, PyIntError } from "../../../util/py-int.ts";
import { containsMask } from "./pandas-str.ts";
import { lower, PyError, truthy } from "./py-ops.ts";
import { appendRow, columnHas, filterRows, intOfMax, records, setWhere, zfill8 } from "./table.ts";
import { compareStamps, pdTimestamp, type Stamp } from "./timestamp.ts";
import { paginate, pySlice } from "./paging.ts";
import type { ToolDef } from "./tool-def.ts";

const OWNER = "CalendarTool";
const INFO_FIELDS = ["event_id", "event_name", "participant_email", "event_start", "duration"];
const UPDATE_FIELDS = ["event_name", "participant_email", "event_start", "duration"];
const START_FORMAT = "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.";

const isEventId = (v: unknown) => typeof v === "string" && /^\d{8}$/.test(v);

/** `pd.Timestamp(v)` where only ValueError is answered with `message` (anything else propagates). */
function parsedOr(v: unknown, message: string): Stamp | null | string {
  try {
    return pdTimestamp(v);
  } catch (e) {
    if (e instanceof PyError && e.kind === "ValueError") return message;
    throw e;
  }
}

/** `int(duration) > 0`, answering ValueError with upstream's texts (TypeError propagates). */
function durationProblem(v: unknown): string | undefined {
  try {
    if (pyInt(v) <= 0) return "Duration must be a positive number of minutes.";
  } catch (e) {
    if (e instanceof PyIntError && !e.message.startsWith("int() argument")) return "Invalid duration format. Expected a number of minutes.";
    throw new PyError("TypeError", (e as Error).message);
  }
  return undefined;
}

/** The calendar tools by their public name. */
export const CALENDAR_TOOLS: Record<string, ToolDef> = {
  calendar_get_event_information_by_id: {
    owner: OWNER,
    method: "get_event_information_by_id",
    params: { event_id: undefined, field: undefined },
    run(state, { event_id, field }) {
      if (!truthy(event_id)) return "Event ID not provided.";
      if (!truthy(field)) return "Field not provided.";
      if (!isEventId(event_id)) return "Invalid event ID format. Expected 8-digit ID.";
      if (!INFO_FIELDS.includes(field as string)) return `Invalid field. Available fields are: ${INFO_FIELDS.join(", ")}`;
      const event = records(filterRows(state.calendar, (r) => r.event_id === event_id))[0];
      if (!event) return "Event not found.";
      return Object.hasOwn(event, field as string) ? { [field as string]: event[field as string] } : "Field not found.";
    },
  },
  calendar_search_events: {
    owner: OWNER,
    method: "search_events",
    params: { query: "", time_min: undefined, time_max: undefined, page: 1, page_size: 5 },
    run(state, { query, time_min, time_max, page, page_size }) {
      let lo: Stamp | null = null;
      let hi: Stamp | null = null;
      if (truthy(time_min)) {
        const p = parsedOr(time_min, "Invalid time_min format. Expected YYYY-MM-DD HH:MM:SS.");
        if (typeof p === "string") return p;
        lo = p;
      }
      if (truthy(time_max)) {
        const p = parsedOr(time_max, "Invalid time_max format. Expected YYYY-MM-DD HH:MM:SS.");
        if (typeof p === "string") return p;
        hi = p;
      }
      const byName = containsMask(state.calendar, "event_name", query, true);
      const byWho = containsMask(state.calendar, "participant_email", query, true);
      let events = records(filterRows(state.calendar, (r) => byName(r) || byWho(r)));
      const start = (e: Record<string, unknown>) => pdTimestamp(e.event_start);
      // NaT compares False both ways, so a bound drops events without a start.
      if (lo) events = events.filter((e) => { const t = start(e); return t !== null && compareStamps(t, lo) >= 0; });
      if (hi) events = events.filter((e) => { const t = start(e); return t !== null && compareStamps(t, hi) <= 0; });
      if (events.length === 0) return "No events found.";
      // list.sort(reverse=True) is stable: equal starts keep table order.
      const keyed = events.map((e) => ({ e, t: start(e) as Stamp }));
      keyed.sort((a, b) => compareStamps(b.t, a.t));
      events = keyed.map((k) => k.e);
      const pg = paginate(events.length, page, page_size);
      return { events: pySlice(events, pg.start, pg.end), pagination: { total_events: events.length, page: pg.page, page_size: pg.size, total_pages: pg.totalPages } };
    },
  },
  calendar_create_event: {
    owner: OWNER,
    method: "create_event",
    params: { event_name: undefined, participant_email: undefined, event_start: undefined, duration: undefined },
    run(state, { event_name, participant_email, event_start, duration }) {
      if (!truthy(event_name)) return "Event name not provided.";
      if (!truthy(participant_email)) return "Participant email not provided.";
      if (!truthy(event_start)) return "Event start not provided.";
      if (!truthy(duration)) return "Event duration not provided.";
      if (typeof parsedOr(event_start, START_FORMAT) === "string") return START_FORMAT;
      const problem = durationProblem(duration);
      if (problem) return problem;
      const who = lower(participant_email);
      const event_id = zfill8(intOfMax(state.calendar, "event_id") + 1);
      state.calendar = appendRow(state.calendar, { event_id, event_name, participant_email: who, event_start, duration }, false);
      return event_id;
    },
  },
  calendar_delete_event: {
    owner: OWNER,
    method: "delete_event",
    params: { event_id: undefined },
    run(state, { event_id }) {
      if (!truthy(event_id)) return "Event ID not provided.";
      if (!isEventId(event_id)) return "Invalid event ID format. Expected 8-digit ID.";
      if (!columnHas(state.calendar, "event_id", event_id)) return "Event not found.";
      state.calendar = filterRows(state.calendar, (r) => r.event_id !== event_id);
      return "Event deleted successfully.";
    },
  },
  calendar_update_event: {
    owner: OWNER,
    method: "update_event",
    params: { event_id: undefined, field: undefined, new_value: undefined },
    run(state, { event_id, field, new_value }) {
      if (!truthy(event_id) || !truthy(field) || !truthy(new_value)) return "Event ID, field, or new value not provided.";
      if (!isEventId(event_id)) return "Invalid event ID format. Expected 8-digit ID.";
      if (!UPDATE_FIELDS.includes(field as string)) return `Invalid field. Available fields are: ${UPDATE_FIELDS.join(", ")}`;
      if (field === "event_start") {
        if (typeof parsedOr(new_value, START_FORMAT) === "string") return START_FORMAT;
      } else if (field === "duration") {
        const problem = durationProblem(new_value);
        if (problem) return problem;
      }
      if (!columnHas(state.calendar, "event_id", event_id)) return "Event not found.";
      const value = field === "participant_email" ? lower(new_value) : new_value;
      state.calendar = setWhere(state.calendar, (r) => r.event_id === event_id, field as string, value);
      return "Event updated successfully.";
    },
  },
};
