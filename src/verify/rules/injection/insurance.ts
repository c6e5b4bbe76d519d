/** Insurance domain tools: adjuster notes, claims, messages, fraud flags, payouts, policies. */
import { sendMessage } from "./common.ts";
import { type Env, field, got, has, lower, newId, s, setDefault, type ToolDef, tool, values } from "./tool-kit.ts";

/** The insurance tools. */
export const INSURANCE_TOOLS: ToolDef[] = [
  tool("add_adjuster_note", ["claim_id", "adjuster_id", "note_text"], [], false, (env: Env, a) => {
    const id = newId("AN-");
    const note = { note_id: id, claim_id: a.claim_id, adjuster_id: a.adjuster_id, note_text: a.note_text, timestamp: "created" };
    setDefault(env, "adjuster_notes", {})[id] = note;
    return note;
  }),
  tool("get_adjuster_notes_for_claim", ["claim_id"], [], false, (env, a) => values(got(env, "adjuster_notes", {})).filter((n) => n?.claim_id === a.claim_id)),
  tool("create_claim", ["policy_id", "claim_number", "date_of_loss", "description", "claim_type", "amount_requested", "adjuster_id"], [], false, (env, a) => {
    const id = newId("CL-");
    const claim = {
      claim_id: id, policy_id: a.policy_id, claim_number: a.claim_number, date_of_loss: a.date_of_loss, description: a.description,
      claim_type: a.claim_type, amount_requested: a.amount_requested, status: "open", adjuster_id: a.adjuster_id,
    };
    setDefault(env, "claims", {})[id] = claim;
    return claim;
  }),
  tool("get_claim_by_id", ["claim_id"], [], false, (env, a) => {
    const c = got(env, "claims", {});
    return has(c, a.claim_id) ? c[a.claim_id] : { error: `Claim ${s(a.claim_id)} not found.` };
  }),
  tool("update_claim_description", ["claim_id", "description"], [], false, (env, a) => {
    const c = got(env, "claims", {});
    if (!has(c, a.claim_id)) return `Error: Claim ${s(a.claim_id)} not found.`;
    c[a.claim_id].description = a.description;
    return `Claim ${s(a.claim_id)} description updated.`;
  }),
  sendMessage,
  tool("get_messages_for_claim", ["claim_id"], [], false, (env, a) =>
    values(got(env, "messages", [])).filter((m) => m?.related_claim_id === a.claim_id || m?.claim_id === a.claim_id),
  ),
  tool("flag_fraud_investigation", ["claim_id", "investigator_id", "flag_reason", "severity"], [], false, (env, a) => {
    const id = newId("FF-");
    const flag = { flag_id: id, claim_id: a.claim_id, investigator_id: a.investigator_id, flag_reason: a.flag_reason, severity: a.severity, status: "open" };
    setDefault(env, "fraud_investigation_flags", {})[id] = flag;
    return flag;
  }),
  tool("process_payout", ["claim_id", "amount", "date", "method", "notes"], [], false, (env, a) => {
    const id = newId("PO-");
    const payout = { payout_id: id, claim_id: a.claim_id, amount: a.amount, date: a.date, method: a.method, status: "processed", notes: a.notes };
    setDefault(env, "payouts", {})[id] = payout;
    return payout;
  }),
  tool("get_policy_by_id", ["policy_id"], [], false, (env, a) => {
    const p = got(env, "policies", {});
    return has(p, a.policy_id) ? p[a.policy_id] : { error: `Policy ${s(a.policy_id)} not found.` };
  }),
  tool("search_policies_by_holder", ["policyholder_name"], [], false, (env, a) => {
    const q = lower(a.policyholder_name);
    return values(got(env, "policies", {})).filter((p) => lower(field(p, "policyholder_name")).includes(q));
  }),
  tool("update_policy_notes", ["policy_id", "notes"], [], false, (env, a) => {
    const p = got(env, "policies", {});
    if (!has(p, a.policy_id)) return `Error: Policy ${s(a.policy_id)} not found.`;
    p[a.policy_id].notes = a.notes;
    return `Policy ${s(a.policy_id)} notes updated.`;
  }),
];
