/**
 * `pd.Timestamp(x)` for the values the tools parse (event starts, search bounds, sent times). pandas
 * reads ISO 8601 itself and hands other strings to dateutil; we accept ISO dates and date-times (`T` or
 * space, optional seconds, fraction, `Z`/offset), `YYYY/MM/DD`, `MM/DD/YYYY`, month names ("Nov 30,
 * 2023", "30 November 2023", a missing year taken from today as dateutil does) and am/pm times, and
 * raise ValueError for the rest, which is where the tools' "Invalid … format" answers come from.
 * dateutil's rarer spellings (weekday names, "3rd", two-digit years) are refused: a documented deviation.
 */
import { PyError, pyTypeName } from "./py-ops.ts";

/** A parsed timestamp: wall-clock milliseconds since the epoch, and its UTC offset in minutes when tz-aware. */
export interface Stamp {
  wallMs: number;
  offsetMin?: number;
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

function monthOf(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, "");
  const i = MONTHS.findIndex((m) => w === m || w === m.slice(0, 3) || (m === "september" && w === "sept"));
  return i >= 0 ? i + 1 : undefined;
}

function bad(s: string): never {
  throw new PyError("ValueError", "could not convert string to Timestamp"); // pandas 1.5 wording, no value
}

function build(s: string, y: number, mo: number, d: number, h = 0, mi = 0, sec = 0, frac = "", tz?: string): Stamp {
  const dim = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > dim || h > 23 || mi > 59 || sec > 59) bad(s);
  const ms = Number(`0.${frac || "0"}`) * 1000;
  const wallMs = Date.UTC(y, mo - 1, d, h, mi, sec) + ms;
  if (tz === undefined) return { wallMs };
  if (tz === "Z" || tz === "z") return { wallMs, offsetMin: 0 };
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(tz)!;
  return { wallMs, offsetMin: (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) };
}

/** Clock part "10", "10:30", "10:30:15.5", with optional am/pm. */
function clock(s: string, text: string | undefined): [number, number, number, string] {
  if (!text) return [0, 0, 0, ""];
  const m = /^(\d{1,2})(?::(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(am|pm|a\.m\.|p\.m\.)?$/i.exec(text.trim());
  if (!m || (m[2] === undefined && !m[5])) bad(s);
  let h = Number(m[1]);
  const ap = m[5]?.toLowerCase()[0];
  if (ap) {
    if (h < 1 || h > 12) bad(s);
    h = (h % 12) + (ap === "p" ? 12 : 0);
  }
  return [h, Number(m[2] ?? 0), Number(m[3] ?? 0), m[4] ?? ""];
}

/** `pd.Timestamp(x)`; null for NaT (`None`). */
export function pdTimestamp(x: unknown, now: Date = new Date()): Stamp | null {
  if (x === null || x === undefined) return null;
  if (typeof x === "number") return { wallMs: x / 1e6 }; // an int is nanoseconds since the epoch
  if (typeof x !== "string") throw new PyError("TypeError", `Cannot convert input [${String(x)}] of type <class '${pyTypeName(x)}'> to Timestamp`);
  const s = x.trim();
  if (s === "" || /^nat$/i.test(s)) return null;
  if (/^(now|today)$/i.test(s)) return { wallMs: now.getTime() };
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(s);
  if (m) return build(x, Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), m[7] ?? "", m[8]);
  m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m) return build(x, Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})(?:[ T](.+))?$/.exec(s);
  if (m) return build(x, Number(m[1]), Number(m[2]), Number(m[3]), ...clock(x, m[4]));
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T](.+))?$/.exec(s);
  if (m) return build(x, Number(m[3]), Number(m[1]), Number(m[2]), ...clock(x, m[4]));
  // Month-name forms: "November 30, 2023 10:00", "Nov 30", "30 November 2023".
  m = /^([A-Za-z]+\.?)\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?(?:,?\s+(?:at\s+)?(.+))?$/.exec(s);
  if (m && monthOf(m[1]!)) return build(x, m[3] ? Number(m[3]) : now.getUTCFullYear(), monthOf(m[1]!)!, Number(m[2]), ...clock(x, m[4]));
  m = /^(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+\.?)(?:,?\s+(\d{4}))?(?:,?\s+(.+))?$/.exec(s);
  if (m && monthOf(m[2]!)) return build(x, m[3] ? Number(m[3]) : now.getUTCFullYear(), monthOf(m[2]!)!, Number(m[1]), ...clock(x, m[4]));
  return bad(x);
}

/** Milliseconds for ordering two stamps; comparing tz-naive with tz-aware raises as pandas does. */
export function compareStamps(a: Stamp, b: Stamp): number {
  if ((a.offsetMin === undefined) !== (b.offsetMin === undefined)) throw new PyError("TypeError", "Cannot compare tz-naive and tz-aware timestamps");
  const ua = a.wallMs - (a.offsetMin ?? 0) * 60_000;
  const ub = b.wallMs - (b.offsetMin ?? 0) * 60_000;
  return ua - ub;
}

/** `ts.date()` as a day number (wall-clock date). */
export function dayOf(s: Stamp): number {
  return Math.floor(s.wallMs / 86_400_000);
}
