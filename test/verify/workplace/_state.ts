/** Test helpers: the shipped WorkBench tables, with any table replaced by records (upstream's mocked read_csv). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyticsFromCsv } from "../../../src/verify/rules/workplace/analytics.ts";
import { fromRecords } from "../../../src/verify/rules/workplace/table.ts";
import type { WorkplaceState } from "../../../src/verify/rules/workplace/tool-def.ts";
import { CSV_FILES, type CsvTexts, initialState } from "../../../src/verify/rules/workplace/tools.ts";

const CSV_DIR = join(import.meta.dir, "..", "..", "..", "assets", "resources_servers", "workplace_assistant", "csv_data");

/** The shipped CSV texts. */
export const CSV: CsvTexts = Object.fromEntries(Object.entries(CSV_FILES).map(([k, rel]) => [k, readFileSync(join(CSV_DIR, rel), "utf8")])) as CsvTexts;

/** Replacement tables, as records. */
export type Mock = Partial<Record<"emails" | "calendar" | "analytics" | "tasks" | "crm" | "directory", Record<string, unknown>[]>>;

/** The pristine state with `mock`'s tables swapped in (analytics goes through reset_state's bool conversion). */
export function stateWith(mock: Mock = {}): WorkplaceState {
  const s = initialState(CSV);
  for (const [k, rows] of Object.entries(mock)) {
    const t = fromRecords(rows);
    (s as unknown as Record<string, unknown>)[k] = k === "analytics" ? analyticsFromCsv(t) : t;
  }
  return s;
}
