/**
 * One rollout rendered readably: the prompt, the model's messages and reasoning, tool calls with their
 * arguments and outputs, then the verify result and every extra field the resources server returned.
 */
import { el, fmt, type Child } from "./dom.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Text with ``` fences shown as code blocks; everything else (LaTeX included) as its source. */
export function richText(text: string): HTMLElement {
  const box = el("div", { class: "text" });
  const parts = text.split(/^```[^\n]*\n?/m);
  parts.forEach((p, i) => {
    if (p === "") return;
    box.append(i % 2 === 1 ? el("pre", { class: "code" }, el("code", {}, p.replace(/\n?```\s*$/, ""))) : el("div", { class: "plain" }, p));
  });
  return box;
}

/** A JSON value folded under a summary line. */
export function folded(label: string, value: unknown, open = false): HTMLElement {
  return el("details", { class: "json", open }, el("summary", {}, label), el("pre", {}, JSON.stringify(value, null, 2)));
}

/** A string that may hold JSON (tool arguments and outputs): pretty when it parses. */
function maybeJson(s: string): HTMLElement {
  try {
    const v = JSON.parse(s);
    if (v !== null && typeof v === "object") return el("pre", { class: "code" }, JSON.stringify(v, null, 2));
  } catch {
    /* not JSON: shown as text */
  }
  return richText(s);
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (isObj(c) && typeof c.text === "string" ? c.text : isObj(c) && typeof c.refusal === "string" ? `[refusal] ${c.refusal}` : JSON.stringify(c))).join("\n");
  return content === undefined ? "" : JSON.stringify(content);
}

function item(it: unknown): HTMLElement {
  if (!isObj(it)) return el("div", { class: "item" }, JSON.stringify(it));
  const type = typeof it.type === "string" ? it.type : it.role ? "message" : "item";
  if (type === "message") {
    const role = String(it.role ?? "assistant");
    return el("div", { class: `item msg role-${role.replace(/[^a-z_]/gi, "")}` }, el("div", { class: "tag" }, role), richText(contentText(it.content)));
  }
  if (type === "reasoning") {
    const txt = [contentText(it.summary), contentText(it.content)].filter(Boolean).join("\n");
    return el("details", { class: "item reasoning" }, el("summary", {}, "reasoning"), richText(txt));
  }
  if (type === "function_call") {
    return el("div", { class: "item call" }, el("div", { class: "tag" }, `tool call: ${String(it.name ?? "?")}`), maybeJson(String(it.arguments ?? "")), it.call_id ? el("div", { class: "dim" }, `call_id ${String(it.call_id)}`) : null);
  }
  if (type === "function_call_output") {
    return el("div", { class: "item output" }, el("div", { class: "tag" }, "tool output"), maybeJson(typeof it.output === "string" ? it.output : JSON.stringify(it.output)));
  }
  return el("div", { class: "item" }, folded(type, it));
}

const SHOWN = new Set(["responses_create_params", "response"]);

/** The trajectory view of one row (its JSON text). */
export function trajectory(text: string, where: string, onCopy: (s: string) => void): HTMLElement {
  let row: Obj;
  try {
    const v = JSON.parse(text);
    row = isObj(v) ? v : { value: v };
  } catch {
    return el("div", { class: "banner" }, `${where}: this line is not valid JSON`);
  }
  const params = isObj(row.responses_create_params) ? row.responses_create_params : {};
  const response = isObj(row.response) ? row.response : {};
  const input = params.input;
  const inputItems: Child[] = typeof input === "string" ? [item({ role: "user", content: input })] : Array.isArray(input) ? input.map(item) : [];
  const output = Array.isArray(response.output) ? response.output.map(item) : [];
  const extras = Object.keys(row).filter((k) => !SHOWN.has(k));
  const verify = el("table", { class: "kv" });
  for (const k of extras) {
    const v = row[k];
    verify.append(el("tr", {}, el("th", {}, k), el("td", {}, v !== null && typeof v === "object" ? folded(Array.isArray(v) ? `[${v.length}]` : "{…}", v) : typeof v === "number" ? fmt(v, 6) : String(v))));
  }
  return el(
    "div",
    { class: "trajectory" },
    el("div", { class: "traj-head" }, el("span", { class: "where" }, where), el("button", { type: "button", class: "copy", onclick: () => onCopy(text) }, "Copy JSON")),
    typeof params.instructions === "string" ? el("section", {}, el("h4", {}, "Instructions"), richText(params.instructions)) : null,
    el("section", {}, el("h4", {}, "Input"), ...inputItems),
    el("section", {}, el("h4", {}, "Output"), ...(output.length ? output : [el("div", { class: "dim" }, "(no output)")])),
    el("section", { class: "verify" }, el("h4", {}, "Verify result"), verify),
    folded("Raw JSON", row),
  );
}
