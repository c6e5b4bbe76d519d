/** Ecommerce domain tools: orders, products, refunds, support tickets. */
import { appendNote, type Env, field, got, has, lower, newId, s, setDefault, type ToolDef, tool, truthy, values } from "./tool-kit.ts";

/** The ecommerce tools. */
export const ECOMMERCE_TOOLS: ToolDef[] = [
  tool("search_orders", [], ["customer_id", "status"], true, (env: Env, a) =>
    values(got(env, "orders", {})).filter((o) => !(truthy(a.customer_id) && o?.customer_id !== a.customer_id) && !(truthy(a.status) && lower(field(o, "status")) !== lower(a.status))),
  ),
  tool("get_order_details", ["order_id"], [], false, (env, a) => {
    const o = got(env, "orders", {});
    return has(o, a.order_id) ? o[a.order_id] : { error: `Order ${s(a.order_id)} not found.` };
  }),
  tool("update_order_status", ["order_id", "status"], [], false, (env, a) => {
    const o = got(env, "orders", {});
    if (!has(o, a.order_id)) return `Error: Order ${s(a.order_id)} not found.`;
    o[a.order_id].status = a.status;
    return `Order ${s(a.order_id)} status updated to '${s(a.status)}'.`;
  }),
  tool("add_order_note", ["order_id", "note"], [], false, (env, a) => {
    const o = got(env, "orders", {});
    if (!has(o, a.order_id)) return `Error: Order ${s(a.order_id)} not found.`;
    o[a.order_id].notes = appendNote(got(o[a.order_id], "notes", ""), a.note);
    return `Note added to order ${s(a.order_id)}.`;
  }),
  tool("search_products", [], ["query", "category"], true, (env, a) =>
    values(got(env, "products", {})).filter((p) => {
      if (truthy(a.category) && lower(field(p, "category")) !== lower(a.category)) return false;
      if (truthy(a.query)) {
        const q = lower(a.query);
        return lower(field(p, "name")).includes(q) || lower(field(p, "description")).includes(q);
      }
      return true;
    }),
  ),
  tool("get_product_details", ["product_id"], [], false, (env, a) => {
    const p = got(env, "products", {});
    return has(p, a.product_id) ? p[a.product_id] : { error: `Product ${s(a.product_id)} not found.` };
  }),
  tool("update_product_stock", ["product_id", "stock_quantity"], [], false, (env, a) => {
    const p = got(env, "products", {});
    if (!has(p, a.product_id)) return `Error: Product ${s(a.product_id)} not found.`;
    p[a.product_id].stock_quantity = a.stock_quantity;
    return `Stock updated for product ${s(a.product_id)} to ${s(a.stock_quantity)}.`;
  }),
  tool("process_refund", ["refund_id", "amount"], ["reason", "admin_notes"], false, (env, a) => {
    const refunds = got(env, "refunds", {});
    if (has(refunds, a.refund_id)) {
      const r = refunds[a.refund_id];
      r.status = "processed";
      r.amount = a.amount;
      if (truthy(a.reason)) r.reason = a.reason;
      if (truthy(a.admin_notes)) r.admin_notes = a.admin_notes;
    } else {
      const r: Record<string, unknown> = { refund_id: a.refund_id, amount: a.amount, status: "processed" };
      if (truthy(a.reason)) r.reason = a.reason;
      if (truthy(a.admin_notes)) r.admin_notes = a.admin_notes;
      setDefault(env, "refunds", {})[a.refund_id] = r;
    }
    return `Refund ${s(a.refund_id)} processed for $${s(a.amount)}.`;
  }),
  tool("create_support_ticket", ["customer_id", "subject", "description"], ["order_id", "priority"], false, (env, a) => {
    const id = newId("T-");
    const t: Record<string, unknown> = { ticket_id: id, customer_id: a.customer_id, subject: a.subject, description: a.description, status: "open", priority: a.priority ?? "medium" };
    if (truthy(a.order_id)) t.order_id = a.order_id;
    setDefault(env, "support_tickets", {})[id] = t;
    return `Support ticket ${id} created.`;
  }),
  tool("get_ticket_details", ["ticket_id"], [], false, (env, a) => {
    const t = got(env, "support_tickets", {});
    return has(t, a.ticket_id) ? t[a.ticket_id] : { error: `Ticket ${s(a.ticket_id)} not found.` };
  }),
  tool("update_ticket_status", ["ticket_id", "status"], ["priority"], false, (env, a) => {
    const t = got(env, "support_tickets", {});
    if (!has(t, a.ticket_id)) return `Error: Ticket ${s(a.ticket_id)} not found.`;
    t[a.ticket_id].status = a.status;
    if (truthy(a.priority)) t[a.ticket_id].priority = a.priority;
    return `Ticket ${s(a.ticket_id)} updated to status '${s(a.status)}'.`;
  }),
];
