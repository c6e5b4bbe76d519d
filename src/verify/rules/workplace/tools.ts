/**
 * The 27 WorkBench tools by public name, the pristine tables they start from, and `callTool`: what
 * upstream's catch-all route does with one call (unknown name → KeyError, bad keywords → TypeError).
 */
import { ANALYTICS_TOOLS, analyticsFromCsv } from "./analytics.ts";
import { CALENDAR_TOOLS } from "./calendar.ts";
import { DIRECTORY_TOOLS } from "./company-directory.ts";
import { CRM_TOOLS } from "./crm.ts";
import { EMAIL_TOOLS } from "./email.ts";
import { PROJECT_TOOLS } from "./project-management.ts";
import { PyError } from "./py-ops.ts";
import { readCsv, type Table } from "./table.ts";
import { bindAndRun, type ToolDef, type WorkplaceState } from "./tool-def.ts";

/** Every tool, in upstream's registration order (directory, email, calendar, analytics, project management, CRM). */
export const WORKPLACE_TOOLS: Readonly<Record<string, ToolDef>> = {
  ...DIRECTORY_TOOLS,
  ...EMAIL_TOOLS,
  ...CALENDAR_TOOLS,
  ...ANALYTICS_TOOLS,
  ...PROJECT_TOOLS,
  ...CRM_TOOLS,
};

/** The CSV texts a state is read from (paths relative to the server's csv_data/). */
export const CSV_FILES = {
  emails: "processed/emails.csv",
  calendar: "processed/calendar_events.csv",
  analytics: "processed/analytics_data.csv",
  tasks: "processed/project_tasks.csv",
  crm: "processed/customer_relationship_manager_data.csv",
  directory: "raw/email_addresses.csv",
} as const;

/** The texts of CSV_FILES, by key. */
export type CsvTexts = Record<keyof typeof CSV_FILES, string>;

const EMPTY_PLOTS: Table = { columns: ["file_path"], rows: [], index: [] };

/** The pristine state read from the CSVs (`get_tools` of the five toolkits). */
export function initialState(csv: CsvTexts): WorkplaceState {
  return {
    emails: readCsv(csv.emails),
    calendar: readCsv(csv.calendar),
    analytics: analyticsFromCsv(readCsv(csv.analytics)),
    plots: EMPTY_PLOTS,
    tasks: readCsv(csv.tasks),
    crm: readCsv(csv.crm),
    directory: readCsv(csv.directory, ["email_address"]),
  };
}

/** A session's own copy (tables are immutable values, so a shallow copy is a full copy). */
export function copyState(s: WorkplaceState): WorkplaceState {
  return { ...s };
}

/** Run one tool call against `state` (which it may change); a Python exception is thrown as PyError. */
export function callTool(state: WorkplaceState, name: string, args: Record<string, unknown>): unknown {
  const def = Object.hasOwn(WORKPLACE_TOOLS, name) ? WORKPLACE_TOOLS[name] : undefined;
  if (!def) throw new PyError("KeyError", `'${name}'`);
  return bindAndRun(def, state, args);
}

/** Upstream's route: the tool's result, or `Error executing tool '<name>': <exception>` for the model to read. */
export function routeToolCall(state: WorkplaceState, name: string, args: Record<string, unknown>): unknown {
  // The route drops None-valued arguments (pydantic exclude_unset + the None filter) before the call.
  const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
  try {
    return callTool(state, name, given);
  } catch (e) {
    if (e instanceof PyError) return `Error executing tool '${name}': ${e.message}`;
    // A JS error here is a bug of ours, not a Python exception: still answer the model, never 500 a rollout.
    return `Error executing tool '${name}': ${(e as Error).message}`;
  }
}
