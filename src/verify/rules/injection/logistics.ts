/** Logistics domain tools: carrier messages, customs, delivery schedules, shipments, warehouse inventory. */
import { type Env, field, got, has, lower, newId, PyError, pyTypeName, s, setDefault, type ToolDef, tool, truthy, values } from "./tool-kit.ts";

/** Python `a < b` / `a + b` on numbers (other types raise the TypeError Python would). */
function num(op: string, x: unknown, y: unknown): void {
  if (typeof x !== "number" || typeof y !== "number") throw new PyError("TypeError", `'${op}' not supported between instances of '${pyTypeName(x)}' and '${pyTypeName(y)}'`);
}

/** The logistics tools. */
export const LOGISTICS_TOOLS: ToolDef[] = [
  tool("get_carrier_messages", [], ["shipment_id"], true, (env: Env, a) => {
    const out = values(got(env, "carrier_messages", {}));
    return truthy(a.shipment_id) ? out.filter((m) => m?.shipment_id === a.shipment_id) : [...out];
  }),
  tool("send_carrier_message", ["to", "subject", "body"], [], false, (env, a) => {
    const user = got(env, "current_user", {});
    const sender = user.email || (Object.hasOwn(user, "name") ? user.name : "system@logistics.example");
    const id = newId("CM-");
    const msg = { message_id: id, from: sender, to: a.to, subject: a.subject, body: a.body, timestamp: "sent" };
    const cm = env.carrier_messages;
    if (cm !== null && typeof cm === "object" && !Array.isArray(cm)) cm[id] = msg;
    else setDefault(env, "carrier_messages", []).push(msg);
    return `Carrier message sent to ${s(a.to)}.`;
  }),
  tool("get_customs_declaration_by_shipment", ["shipment_id"], [], false, (env, a) =>
    values(got(env, "customs_declarations", {})).find((d) => d?.shipment_id === a.shipment_id) ?? { error: `No customs declaration found for shipment ${s(a.shipment_id)}.` },
  ),
  tool("submit_customs_declaration", ["shipment_id", "hs_code", "declared_value"], ["additional_info"], true, (env, a) => {
    const existing = values(got(env, "customs_declarations", {})).find((d) => d?.shipment_id === a.shipment_id);
    if (existing) {
      existing.hs_code = a.hs_code;
      existing.declared_value = a.declared_value;
      if (a.additional_info !== undefined) existing.additional_info = a.additional_info;
      existing.status = "submitted";
      return existing;
    }
    const id = newId("CD-");
    const decl: Record<string, unknown> = { declaration_id: id, shipment_id: a.shipment_id, hs_code: a.hs_code, declared_value: a.declared_value, status: "submitted" };
    if (a.additional_info !== undefined) decl.additional_info = a.additional_info;
    setDefault(env, "customs_declarations", {})[id] = decl;
    return decl;
  }),
  tool("get_delivery_schedule", ["shipment_id"], [], false, (env, a) =>
    values(got(env, "delivery_schedules", {})).find((d) => d?.shipment_id === a.shipment_id) ?? { error: `No delivery schedule found for shipment ${s(a.shipment_id)}.` },
  ),
  tool("get_shipment_by_id", ["shipment_id"], [], false, (env, a) => {
    const x = got(env, "shipments", {});
    return has(x, a.shipment_id) ? x[a.shipment_id] : { error: `Shipment ${s(a.shipment_id)} not found.` };
  }),
  tool("search_shipments_by_status", ["status"], [], false, (env, a) => {
    const st = lower(a.status);
    return values(got(env, "shipments", {})).filter((x) => lower(field(x, "status")) === st);
  }),
  tool("update_shipment_status", ["shipment_id", "status"], ["eta", "notes"], true, (env, a) => {
    const x = got(env, "shipments", {});
    if (!has(x, a.shipment_id)) return `Error: Shipment ${s(a.shipment_id)} not found.`;
    x[a.shipment_id].status = a.status;
    if (a.eta !== undefined) x[a.shipment_id].eta = a.eta;
    if (a.notes !== undefined) x[a.shipment_id].notes = a.notes;
    return `Shipment ${s(a.shipment_id)} updated to status '${s(a.status)}'.`;
  }),
  tool("get_warehouse_inventory_item", ["inventory_id"], [], false, (env, a) => {
    const x = got(env, "warehouse_inventories", {});
    return has(x, a.inventory_id) ? x[a.inventory_id] : { error: `Inventory item ${s(a.inventory_id)} not found.` };
  }),
  tool("list_low_stock_items", ["threshold"], [], false, (env, a) =>
    values(got(env, "warehouse_inventories", {})).filter((x) => {
      const q = got(x, "quantity", 0);
      num("<", q, a.threshold);
      return q < a.threshold;
    }),
  ),
  tool("add_warehouse_inventory", ["sku", "description", "quantity", "warehouse_location"], ["comments"], true, (env, a) => {
    const id = newId("INV-");
    const item: Record<string, unknown> = { inventory_id: id, sku: a.sku, description: a.description, quantity: a.quantity, warehouse_location: a.warehouse_location };
    if (a.comments !== undefined) item.comments = a.comments;
    setDefault(env, "warehouse_inventories", {})[id] = item;
    return `Inventory item ${id} added (SKU: ${s(a.sku)}).`;
  }),
  tool("adjust_warehouse_quantity", ["inventory_id", "adjustment"], [], false, (env, a) => {
    const x = got(env, "warehouse_inventories", {});
    if (!has(x, a.inventory_id)) return `Error: Inventory item ${s(a.inventory_id)} not found.`;
    const q = got(x[a.inventory_id], "quantity", 0);
    if (typeof q !== "number" || typeof a.adjustment !== "number") throw new PyError("TypeError", `unsupported operand type(s) for +: '${pyTypeName(q)}' and '${pyTypeName(a.adjustment)}'`);
    x[a.inventory_id].quantity = q + a.adjustment;
    return `Inventory ${s(a.inventory_id)} quantity adjusted by ${s(a.adjustment)}.`;
  }),
];
