/**
 * calendar: grade the calendar (a JSON list of events) an assistant proposes against the expected
 * state (per event: duration, a [min_time, max_time] window and an optional before/after/between/at
 * constraint). Times are 12-hour ("2pm", "10:30am") or 24-hour ("14:00"), parsed as upstream's int().
 * Any malformed event makes the grade 0 with reason "error_in_grading", never an exception.
 */
import { pyEqual } from "../../util/py-equal.ts";
import { pyInt } from "../../util/py-int.ts";
import { pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

/** A calendar grade: 1 or 0 and upstream's reason code. */
export interface CalendarGrade {
  reward: 0 | 1;
  reason: "pass" | "think_found" | "no_json_list" | "different_number_of_events" | "conflicting_events" | "constraint_violated" | "error_in_grading";
}

class GradeError extends Error {}

function str(v: unknown): string {
  if (typeof v !== "string") throw new GradeError(`expected a time string, got ${JSON.stringify(v)}`);
  return v;
}

function hourMinute(s: string): [number, number] {
  const parts = s.split(":");
  if (parts.length !== 2) throw new GradeError(`not H:MM: ${s}`);
  return [pyInt(parts[0]), pyInt(parts[1])];
}

/** Minutes since midnight for "10am", "2:15pm" or "14:00". */
export function timeToMinutes(raw: unknown): number {
  const t = pyStrip(str(raw));
  const period = t.includes("am") ? "am" : t.includes("pm") ? "pm" : undefined;
  if (!period) {
    const [h, m] = hourMinute(t);
    return h * 60 + m;
  }
  const bare = t.replaceAll(period, "");
  const base = period === "pm" ? 12 * 60 : 0;
  if (!t.includes(":")) {
    const h = pyInt(bare);
    return (h !== 12 ? h * 60 : 0) + base;
  }
  const [h, m] = hourMinute(bare);
  return (h !== 12 ? h * 60 : 0) + base + m;
}

/** Python number arithmetic only: a string duration is a TypeError upstream. */
function num(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new GradeError(`expected a number, got ${JSON.stringify(v)}`);
}

function field(ev: unknown, key: string): unknown {
  if (!ev || typeof ev !== "object" || Array.isArray(ev) || !Object.hasOwn(ev, key)) throw new GradeError(`event lacks ${key}`);
  return (ev as Obj)[key];
}

/** The first JSON list holding at least one object in the text (upstream's regex), parsed, or null. */
export function extractJsonList(text: string): unknown[] | null {
  const m = /\[(?:[^[\]]|\{[^}]*\})*\{(?:[^[\]]|\{[^}]*\})*\}(?:[^[\]]|\{[^}]*\})*\]/.exec(text);
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]);
    return Array.isArray(v) ? v : (v as unknown[]);
  } catch {
    return null;
  }
}

function conflicts(events: unknown[], check: unknown): boolean {
  const start = timeToMinutes(field(check, "start_time"));
  const end = start + num(field(check, "duration"));
  for (const other of events) {
    // Upstream skips every event equal to the one checked (so exact duplicates never conflict).
    if (pyEqual(other, check)) continue;
    const s = timeToMinutes(field(other, "start_time"));
    const e = s + num(field(other, "duration"));
    if (!(end <= s || start >= e)) return true;
  }
  return false;
}

function satisfied(ev: unknown, exp: unknown): boolean {
  if (!pyEqual(field(ev, "duration"), field(exp, "duration"))) return false;
  const min = timeToMinutes(field(exp, "min_time")), max = timeToMinutes(field(exp, "max_time"));
  const start = timeToMinutes(field(ev, "start_time"));
  const end = start + num(field(ev, "duration"));
  if (start < min || end > max) return false;
  const c = field(exp, "constraint");
  if (c === null) return true;
  const cs = str(c);
  if (cs.startsWith("before ")) return end <= timeToMinutes(cs.replaceAll("before ", ""));
  if (cs.startsWith("after ")) return start >= timeToMinutes(cs.replaceAll("after ", ""));
  if (cs.startsWith("between ")) {
    const parts = cs.replaceAll("between ", "").split(" and ");
    if (parts.length !== 2) throw new GradeError(`bad between constraint ${cs}`);
    return start >= timeToMinutes(parts[0]) && end <= timeToMinutes(parts[1]);
  }
  if (cs.startsWith("at ")) return start === timeToMinutes(cs.replaceAll("at ", ""));
  return true;
}

/** Python's str() of a JSON scalar used as a dict key (event ids are ints or strings). */
function pyKey(v: unknown): string {
  if (typeof v === "boolean") return v ? "True" : "False";
  if (v === null) return "None";
  // A float id spelled 1.0 is "1.0" in Python; JSON.parse keeps no spelling, so it reads as "1" here.
  return String(v);
}

/** Grade an assistant's calendar against the expected state (upstream's grade_assistant_response). */
export function gradeCalendar(text: string, expected: Obj, allowNoJsonList = false): CalendarGrade {
  if (text.includes("<think>")) return { reward: 0, reason: "think_found" };
  if (Object.keys(expected).length === 0) return { reward: 1, reason: "pass" };
  try {
    const cal = extractJsonList(text);
    if (cal === null || cal.length === 0) return allowNoJsonList ? { reward: 1, reason: "pass" } : { reward: 0, reason: "no_json_list" };
    const byId = new Map<string, unknown>();
    for (const ev of cal) byId.set(pyKey(field(ev, "event_id")), ev);
    if (byId.size !== Object.keys(expected).length) return { reward: 0, reason: "different_number_of_events" };
    for (const ev of cal) if (conflicts(cal, ev)) return { reward: 0, reason: "conflicting_events" };
    for (const id of Object.keys(expected)) {
      if (!byId.has(id)) throw new GradeError(`no event ${id}`);
      if (!satisfied(byId.get(id), expected[id])) return { reward: 0, reason: "constraint_violated" };
    }
  } catch {
    return { reward: 0, reason: "error_in_grading" };
  }
  return { reward: 1, reason: "pass" };
}
