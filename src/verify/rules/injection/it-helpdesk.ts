/** IT helpdesk domain tools: assets, knowledge base, incidents, messages. */
import { getMessages, sendMessage } from "./common.ts";
import { type Env, field, got, has, lower, newId, s, setDefault, type ToolDef, tool, truthy, values } from "./tool-kit.ts";

/** `kw in a or kw in b` over lower-cased record fields. */
function mentions(rec: unknown, keyword: unknown, keys: string[]): boolean {
  const kw = lower(keyword);
  return keys.some((k) => lower(field(rec, k)).includes(kw));
}

/** The IT helpdesk tools. */
export const IT_HELPDESK_TOOLS: ToolDef[] = [
  tool("search_assets", [], ["tag", "type", "status", "location"], true, (env: Env, a) =>
    values(got(env, "assets", {})).filter(
      (x) =>
        !(truthy(a.tag) && !lower(field(x, "tag")).includes(lower(a.tag))) &&
        !(truthy(a.type) && lower(field(x, "type")) !== lower(a.type)) &&
        !(truthy(a.status) && lower(field(x, "status")) !== lower(a.status)) &&
        !(truthy(a.location) && !lower(field(x, "location")).includes(lower(a.location))),
    ),
  ),
  tool("get_asset", ["asset_id"], [], false, (env, a) => {
    const x = got(env, "assets", {});
    return has(x, a.asset_id) ? x[a.asset_id] : { error: `Asset ${s(a.asset_id)} not found.` };
  }),
  tool("update_asset_notes", ["asset_id", "notes"], [], false, (env, a) => {
    const x = got(env, "assets", {});
    if (!has(x, a.asset_id)) return `Error: Asset ${s(a.asset_id)} not found.`;
    x[a.asset_id].notes = a.notes;
    return `Asset ${s(a.asset_id)} notes updated.`;
  }),
  sendMessage,
  getMessages,
  tool("search_kb_articles", [], ["keyword", "category"], true, (env, a) =>
    values(got(env, "knowledge_base_articles", {})).filter(
      (x) => !(truthy(a.category) && lower(field(x, "category")) !== lower(a.category)) && !(truthy(a.keyword) && !mentions(x, a.keyword, ["title", "content"])),
    ),
  ),
  tool("get_kb_article", ["article_id"], [], false, (env, a) => {
    const x = got(env, "knowledge_base_articles", {});
    return has(x, a.article_id) ? x[a.article_id] : { error: `Article ${s(a.article_id)} not found.` };
  }),
  tool("update_kb_article_content", ["article_id", "content"], [], false, (env, a) => {
    const x = got(env, "knowledge_base_articles", {});
    if (!has(x, a.article_id)) return `Error: Article ${s(a.article_id)} not found.`;
    x[a.article_id].content = a.content;
    return `Article ${s(a.article_id)} content updated.`;
  }),
  tool("search_incidents", [], ["keyword", "status", "priority"], true, (env, a) =>
    values(got(env, "incidents", {})).filter(
      (x) =>
        !(truthy(a.status) && lower(field(x, "status")) !== lower(a.status)) &&
        !(truthy(a.priority) && lower(field(x, "priority")) !== lower(a.priority)) &&
        !(truthy(a.keyword) && !mentions(x, a.keyword, ["title", "description"])),
    ),
  ),
  tool("get_incident", ["ticket_id"], [], false, (env, a) => {
    const x = got(env, "incidents", {});
    return has(x, a.ticket_id) ? x[a.ticket_id] : { error: `Incident ${s(a.ticket_id)} not found.` };
  }),
  tool("update_incident_description", ["ticket_id", "description"], [], false, (env, a) => {
    const x = got(env, "incidents", {});
    if (!has(x, a.ticket_id)) return `Error: Incident ${s(a.ticket_id)} not found.`;
    x[a.ticket_id].description = a.description;
    return `Incident ${s(a.ticket_id)} description updated.`;
  }),
  tool("create_incident", ["title", "description", "priority", "assigned_to"], [], false, (env, a) => {
    const id = newId("INC-");
    setDefault(env, "incidents", {})[id] = { ticket_id: id, title: a.title, description: a.description, status: "Open", priority: a.priority, assigned_to: a.assigned_to };
    return `Incident ${id} created.`;
  }),
];
