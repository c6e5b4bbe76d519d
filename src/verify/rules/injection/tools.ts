/**
 * Every domain's tools in one table (later domains win a shared name, as upstream merges its handler
 * dicts) and the tool call: arguments bound like Python keyword arguments, the answer a string
 * (`json.dumps` of a non-string result), a handler failure reported in the output rather than raised.
 */
import { pyDumps } from "../../../util/py-json-dumps.ts";
import { ECOMMERCE_TOOLS } from "./ecommerce.ts";
import { EDUCATION_TOOLS } from "./education.ts";
import { HEALTHCARE_TOOLS } from "./healthcare.ts";
import { HR_TOOLS } from "./hr.ts";
import { INSURANCE_TOOLS } from "./insurance.ts";
import { IT_HELPDESK_TOOLS } from "./it-helpdesk.ts";
import { LEGAL_TOOLS } from "./legal.ts";
import { LOGISTICS_TOOLS } from "./logistics.ts";
import { REAL_ESTATE_TOOLS } from "./real-estate.ts";
import { bindArgs, type Env, PyError, type ToolDef } from "./tool-kit.ts";

/** Tool name → definition, in upstream's merge order. */
export const INJECTION_TOOLS: ReadonlyMap<string, ToolDef> = new Map(
  [HEALTHCARE_TOOLS, HR_TOOLS, ECOMMERCE_TOOLS, EDUCATION_TOOLS, INSURANCE_TOOLS, IT_HELPDESK_TOOLS, LEGAL_TOOLS, LOGISTICS_TOOLS, REAL_ESTATE_TOOLS].flat().map((t) => [t.name, t]),
);

/** Run one tool call against a session's environment (mutated in place); the answer's `output` text. */
export function callInjectionTool(env: Env, name: string, body: Record<string, unknown>): string {
  const def = INJECTION_TOOLS.get(name);
  if (!def) return `Unknown tool: ${name}`;
  // Upstream drops null-valued arguments before the call, so a null optional takes its default.
  const args = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && v !== undefined));
  try {
    bindArgs(def, args);
    const result = def.run(env, args);
    return typeof result === "string" ? result : pyDumps(result);
  } catch (e) {
    if (e instanceof PyError) return `Error executing tool '${name}' (${e.pyType}): ${e.message}`;
    // A shape upstream would also choke on (e.g. a record that is not a dict): reported, never a 500.
    const msg = e instanceof Error ? e.message : String(e);
    return `Error executing tool '${name}' (${e instanceof TypeError ? "AttributeError" : "Exception"}): ${msg}`;
  }
}
