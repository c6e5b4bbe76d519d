/** `pd.Timestamp(str)` as the tools use it: what parses (to which wall time), what is a ValueError, tz rules. */
import { describe, expect, test } from "bun:test";
import { compareStamps, dayOf, pdTimestamp } from "../../../src/verify/rules/workplace/timestamp.ts";

const NOW = new Date(Date.UTC(2026, 0, 15));
const iso = (s: string) => new Date(pdTimestamp(s, NOW)!.wallMs).toISOString();

// [input, wall time as ISO]
const PARSES: [string, string][] = [
  ["2023-11-30", "2023-11-30T00:00:00.000Z"],
  ["2023-11-30 23:59:00", "2023-11-30T23:59:00.000Z"],
  ["2023-11-30T09:05", "2023-11-30T09:05:00.000Z"],
  ["2023-11-30 09:05:01.250", "2023-11-30T09:05:01.250Z"],
  ["2023-1-5", "2023-01-05T00:00:00.000Z"],
  ["20231130", "2023-11-30T00:00:00.000Z"],
  ["2023/11/30 10:00", "2023-11-30T10:00:00.000Z"],
  ["11/30/2023", "2023-11-30T00:00:00.000Z"],
  ["November 30, 2023", "2023-11-30T00:00:00.000Z"],
  ["Nov 30 2023 10am", "2023-11-30T10:00:00.000Z"],
  ["30 November 2023", "2023-11-30T00:00:00.000Z"],
  ["December 13, 2023 9:00 PM", "2023-12-13T21:00:00.000Z"],
  ["Sept 3", "2026-09-03T00:00:00.000Z"], // dateutil fills a missing year from today
  ["  2023-11-30  ", "2023-11-30T00:00:00.000Z"],
];
const VALUE_ERRORS = ["2023-13-01", "2023-02-30", "2023-11-30 24:00:00", "next tuesday", "Nov 31 2023", "2023-11-30 10am extra", "13:00 pm 2023-01-01"];

describe("pd.Timestamp(str)", () => {
  test.each(PARSES)("%p", (s, want) => expect(iso(s)).toBe(want));
  test.each(VALUE_ERRORS)("%p is a ValueError", (s) => expect(() => pdTimestamp(s, NOW)).toThrow(expect.objectContaining({ kind: "ValueError" })));
  test("None and '' are NaT; a bool or list is a TypeError; an int is nanoseconds", () => {
    expect(pdTimestamp(null)).toBeNull();
    expect(pdTimestamp("")).toBeNull();
    expect(() => pdTimestamp(true)).toThrow(expect.objectContaining({ kind: "TypeError" }));
    expect(() => pdTimestamp(["2023"])).toThrow(expect.objectContaining({ kind: "TypeError" }));
    expect(pdTimestamp(86_400_000_000_000)!.wallMs).toBe(86_400_000);
  });
  test("naive vs aware comparisons raise; aware ones compare instants; .date() is the wall date", () => {
    const naive = pdTimestamp("2023-11-30 10:00:00")!;
    const utc = pdTimestamp("2023-11-30T10:00:00Z")!;
    const plus2 = pdTimestamp("2023-11-30T12:00:00+02:00")!;
    expect(() => compareStamps(naive, utc)).toThrow("Cannot compare tz-naive and tz-aware timestamps");
    expect(compareStamps(utc, plus2)).toBe(0);
    expect(dayOf(pdTimestamp("2023-11-30 23:59:59")!)).toBe(dayOf(pdTimestamp("2023-11-30")!));
  });
});
