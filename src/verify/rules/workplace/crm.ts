/**
 * WorkBench's customer relationship manager tools (CustomerRelationshipManagerTool). Search ANDs
 * regex `str.contains` filters (a NaN cell in a searched column raises, as pandas' mask does) and
 * string-ordered date bounds, then pages; status and product interest are checked case-sensitively
 * on update; emails are lowercased; a new customer is appended with `ignore_index=True`.
 */
import { containsMask } from "./pandas-str.ts";
import { hashable, lower, strCompare, truthy, isNa } from "./py-ops.ts";
import { appendRow, columnHas, filterRows, intOfMax, records, setWhere, type Table, zfill8 } from "./table.ts";
import { paginate, pySlice } from "./paging.ts";
import type { ToolDef } from "./tool-def.ts";

const OWNER = "CustomerRelationshipManagerTool";
const STATUSES = ["Qualified", "Won", "Lost", "Lead", "Proposal"];
const PRODUCTS = ["Software", "Hardware", "Services", "Consulting", "Training"];

/** `df[df[col] >= v]` on an object column: NaN cells compare False, a str/other mix raises TypeError. */
function bound(t: Table, col: string, v: unknown, op: ">=" | "<="): Table {
  return filterRows(t, (r) => !isNa(r[col]) && strCompare(r[col], v, op));
}

/** The CRM tools by their public name. */
export const CRM_TOOLS: Record<string, ToolDef> = {
  customer_relationship_manager_search_customers: {
    owner: OWNER,
    method: "search_customers",
    params: {
      customer_name: undefined, customer_email: undefined, product_interest: undefined, status: undefined, assigned_to_email: undefined,
      last_contact_date_min: undefined, last_contact_date_max: undefined, follow_up_by_min: undefined, follow_up_by_max: undefined, page: 1, page_size: 5,
    },
    run(state, a) {
      const filters = ["customer_name", "customer_email", "product_interest", "status", "assigned_to_email", "last_contact_date_min", "last_contact_date_max", "follow_up_by_min", "follow_up_by_max"];
      if (!filters.some((k) => truthy(a[k]))) return "No search parameters provided. Please provide at least one parameter.";
      let c = state.crm;
      for (const col of ["customer_name", "customer_email", "product_interest", "status", "assigned_to_email"]) {
        if (truthy(a[col])) c = filterRows(c, containsMask(c, col, a[col], false));
      }
      if (truthy(a.last_contact_date_min)) c = bound(c, "last_contact_date", a.last_contact_date_min, ">=");
      if (truthy(a.last_contact_date_max)) c = bound(c, "last_contact_date", a.last_contact_date_max, "<=");
      if (truthy(a.follow_up_by_min)) c = bound(c, "follow_up_by", a.follow_up_by_min, ">=");
      if (truthy(a.follow_up_by_max)) c = bound(c, "follow_up_by", a.follow_up_by_max, "<=");
      const customers = records(c);
      const pg = paginate(customers.length, a.page, a.page_size);
      if (customers.length === 0) return "No customers found.";
      return { customers: pySlice(customers, pg.start, pg.end), pagination: { total_customers: customers.length, page: pg.page, page_size: pg.size, total_pages: pg.totalPages } };
    },
  },
  customer_relationship_manager_update_customer: {
    owner: OWNER,
    method: "update_customer",
    params: { customer_id: undefined, field: undefined, new_value: undefined },
    run(state, { customer_id, field, new_value }) {
      if (!truthy(customer_id) || !truthy(field) || !truthy(new_value)) return "Customer ID, field, or new value not provided.";
      if (field === "status" && !STATUSES.includes(new_value as string)) return "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'";
      if (field === "product_interest" && !PRODUCTS.includes(new_value as string)) {
        return "Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'";
      }
      const value = field === "customer_email" || field === "assigned_to_email" ? lower(new_value) : new_value;
      if (!columnHas(state.crm, "customer_id", customer_id)) return "Customer not found.";
      if (!state.crm.columns.includes(hashable(field) as string)) {
        return "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'";
      }
      state.crm = setWhere(state.crm, (r) => r.customer_id === customer_id, field as string, value);
      return "Customer updated successfully.";
    },
  },
  customer_relationship_manager_add_customer: {
    owner: OWNER,
    method: "add_customer",
    params: {
      customer_name: undefined, assigned_to_email: undefined, status: undefined, customer_email: undefined, customer_phone: undefined,
      last_contact_date: undefined, product_interest: undefined, notes: "", follow_up_by: undefined,
    },
    run(state, a) {
      if (![a.customer_name, a.assigned_to_email, a.status].every(truthy)) return "Please provide all required fields: customer_name, assigned_to_email, status.";
      const assigned = lower(a.assigned_to_email);
      const email = truthy(a.customer_email) ? lower(a.customer_email) : a.customer_email;
      const id = zfill8(intOfMax(state.crm, "customer_id") + 1);
      const row = {
        customer_id: id, customer_name: a.customer_name, customer_email: email, customer_phone: a.customer_phone, last_contact_date: a.last_contact_date,
        product_interest: a.product_interest, status: a.status, assigned_to_email: assigned, notes: a.notes, follow_up_by: a.follow_up_by,
      };
      state.crm = appendRow(state.crm, row, true);
      return id;
    },
  },
  customer_relationship_manager_delete_customer: {
    owner: OWNER,
    method: "delete_customer",
    params: { customer_id: undefined },
    run(state, { customer_id }) {
      if (!truthy(customer_id)) return "Customer ID not provided.";
      if (!columnHas(state.crm, "customer_id", customer_id)) return "Customer not found.";
      state.crm = filterRows(state.crm, (r) => r.customer_id !== customer_id);
      return "Customer deleted successfully.";
    },
  },
};
