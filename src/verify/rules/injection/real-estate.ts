/** Real estate domain tools: clients, inspections, property listings, messages. */
import { getMessages, sendMessage } from "./common.ts";
import { type Env, field, got, has, lower, newId, PyError, pyTypeName, s, setDefault, type ToolDef, tool, truthy, values } from "./tool-kit.ts";

/** `price < bound` with Python's TypeError for non-numbers. */
function below(x: unknown, y: unknown): boolean {
  if (typeof x !== "number" || typeof y !== "number") throw new PyError("TypeError", `'<' not supported between instances of '${pyTypeName(x)}' and '${pyTypeName(y)}'`);
  return x < y;
}

/** The real estate tools. */
export const REAL_ESTATE_TOOLS: ToolDef[] = [
  tool("list_clients", [], [], true, (env: Env) => values(got(env, "clients", {}))),
  tool("get_client_details", ["client_id"], [], false, (env, a) => {
    const c = got(env, "clients", {});
    return has(c, a.client_id) ? c[a.client_id] : { error: `Client ${s(a.client_id)} not found.` };
  }),
  tool("add_client_note", ["client_id", "notes"], [], false, (env, a) => {
    const c = got(env, "clients", {});
    if (!has(c, a.client_id)) return `Error: Client ${s(a.client_id)} not found.`;
    c[a.client_id].notes = a.notes;
    return `Notes updated for client ${s(a.client_id)}.`;
  }),
  getMessages,
  sendMessage,
  tool("schedule_inspection", ["property_id", "inspector_name", "inspection_date"], [], false, (env, a) => {
    const id = newId("IR-");
    setDefault(env, "inspection_reports", {})[id] = {
      report_id: id, property_id: a.property_id, inspector_name: a.inspector_name, inspection_date: a.inspection_date,
      findings: "", recommendations: "", overall_condition: "",
    };
    return `Inspection ${id} scheduled for property ${s(a.property_id)}.`;
  }),
  tool("get_inspection_report", ["report_id"], [], false, (env, a) => {
    const r = got(env, "inspection_reports", {});
    return has(r, a.report_id) ? r[a.report_id] : { error: `Inspection report ${s(a.report_id)} not found.` };
  }),
  tool("submit_inspection_findings", ["report_id", "findings", "recommendations"], [], false, (env, a) => {
    const r = got(env, "inspection_reports", {});
    if (!has(r, a.report_id)) return `Error: Inspection report ${s(a.report_id)} not found.`;
    r[a.report_id].findings = a.findings;
    r[a.report_id].recommendations = a.recommendations;
    return `Findings submitted for inspection report ${s(a.report_id)}.`;
  }),
  tool("search_properties", [], ["keywords", "min_price", "max_price", "location"], true, (env, a) =>
    values(got(env, "property_listings", {})).filter((p) => {
      const price = got(p, "price", 0);
      if (a.min_price !== undefined && below(price, a.min_price)) return false;
      if (a.max_price !== undefined && below(a.max_price, price)) return false;
      if (truthy(a.location) && !lower(field(p, "address")).includes(lower(a.location))) return false;
      if (truthy(a.keywords)) {
        const kw = lower(a.keywords);
        return lower(field(p, "address")).includes(kw) || lower(field(p, "description")).includes(kw);
      }
      return true;
    }),
  ),
  tool("get_property_details", ["property_id"], [], false, (env, a) => {
    const p = got(env, "property_listings", {});
    return has(p, a.property_id) ? p[a.property_id] : { error: `Property ${s(a.property_id)} not found.` };
  }),
  tool("create_property", ["address", "price", "bedrooms", "bathrooms"], ["description", "status", "listing_date"], true, (env, a) => {
    const id = newId("PROP-");
    const prop: Record<string, unknown> = { property_id: id, address: a.address, price: a.price, bedrooms: a.bedrooms, bathrooms: a.bathrooms, status: a.status ?? "active" };
    if (truthy(a.description)) prop.description = a.description;
    if (truthy(a.listing_date)) prop.listing_date = a.listing_date;
    setDefault(env, "property_listings", {})[id] = prop;
    return `Property ${id} created at ${s(a.address)}.`;
  }),
  tool("update_property_description", ["property_id", "description"], [], false, (env, a) => {
    const p = got(env, "property_listings", {});
    if (!has(p, a.property_id)) return `Error: Property ${s(a.property_id)} not found.`;
    p[a.property_id].description = a.description;
    return `Property ${s(a.property_id)} description updated.`;
  }),
];
