/** send_message / get_messages, shared by several domains whose recipient parameter names differ. */
import { type Env, field, lower, newId, PyError, pyTypeName, s, tool, truthy } from "./tool-kit.ts";

/** Send a message: recipient from `recipient`, `to` or `recipients` (a list is joined). */
export const sendMessage = tool("send_message", [], [], true, (env: Env, a) => {
  const user = env.current_user ?? {};
  const sender = a.from_ || user.email || (Object.hasOwn(user, "name") ? user.name : "system@example.com");
  const recipient = a.recipient || a.to || a.recipients;
  const recipientStr = Array.isArray(recipient) ? recipient.map((r) => s(r)).join(", ") : truthy(recipient) ? s(recipient) : "unknown";
  const msg: Record<string, unknown> = { from: sender, to: recipientStr, subject: a.subject ?? "", body: a.body ?? "", timestamp: "sent" };
  if ("case_id" in a) msg.case_id = a.case_id;
  if ("related_claim_id" in a) msg.related_claim_id = a.related_claim_id;
  const messages = env.messages;
  if (Array.isArray(messages)) messages.push(msg);
  else if (messages !== null && typeof messages === "object") {
    const id = newId("MSG-");
    msg.message_id = id;
    messages[id] = msg;
  } else if (Object.hasOwn(env, "messages")) throw new PyError("AttributeError", `'${pyTypeName(messages)}' object has no attribute 'append'`);
  else env.messages = [msg];
  return `Message sent to ${recipientStr}.`;
});

/** List messages, optionally filtered by case_id, from_, to and is_read. */
export const getMessages = tool("get_messages", [], [], true, (env: Env, a) => {
  const messages = Object.hasOwn(env, "messages") ? env.messages : [];
  let out: any[] = Array.isArray(messages) ? [...messages] : Object.values(messages ?? {});
  if (truthy(a.case_id)) out = out.filter((m) => m?.case_id === a.case_id);
  if (truthy(a.from_)) out = out.filter((m) => lower(field(m, "from")) === lower(a.from_));
  if (truthy(a.to)) out = out.filter((m) => lower(field(m, "to")) === lower(a.to));
  if (a.is_read !== undefined && a.is_read !== null) out = out.filter((m) => m?.is_read === a.is_read);
  return out;
});
