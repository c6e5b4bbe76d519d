/**
 * What judge servers show their judge: the question (last user message of the request) and the
 * candidate (last assistant message of the response), optionally narrowed by a Python regex
 * (last match; its first non-empty group, else the whole match), as upstream's
 * equivalence_llm_judge and the servers built on it read them.
 */
import { PyRegexError, pyRegex, type PyRegex } from "../../util/py-regex.ts";
import { pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

/** A regex with the flags upstream's extractors use (MULTILINE | DOTALL); undefined when Python would reject it (re.error → no match). */
export function extractionRegex(pattern: string): PyRegex | undefined {
  try {
    return pyRegex(pattern, { multiline: true, dotAll: true });
  } catch (e) {
    if (e instanceof PyRegexError && e.kind === "syntax") return undefined;
    throw e;
  }
}

/** The last match's first non-empty group (stripped), else the whole match; undefined when nothing matches. */
export function lastMatchText(text: string, re: PyRegex | undefined): string | undefined {
  if (!re) return undefined;
  const all = re.finditer(text);
  if (all.length === 0) return undefined;
  const m = all[all.length - 1]!;
  for (let g = 1; g <= re.groups; g++) {
    const v = m[g];
    if (typeof v === "string" && pyStrip(v) !== "") return pyStrip(v);
  }
  return pyStrip(m[0]);
}

/** The last user message's text (content string, or its text blocks joined by newlines), stripped; "" when none. */
export function lastUserText(input: unknown): string {
  let last: string | undefined;
  for (const m of (Array.isArray(input) ? input : []) as Obj[]) {
    if (m?.role !== "user") continue;
    const c = m.content;
    if (typeof c === "string") last = c;
    else if (Array.isArray(c)) {
      const texts = (c as Obj[]).map((b) => b?.text).filter((t): t is string => typeof t === "string");
      if (texts.length > 0) last = texts.join("\n");
    }
  }
  return pyStrip(last ?? "");
}

/** The question shown to the judge: the last user text, narrowed by `question_extract_regex` when it matches. */
export function questionText(input: unknown, re: PyRegex | undefined): string {
  const text = lastUserText(input);
  if (text === "") return text;
  return lastMatchText(text, re) ?? text;
}

/**
 * The candidate shown to the judge: the last assistant message of the response (text parts joined
 * by newlines), narrowed by `re` when it matches; `failure` when there is no assistant text.
 */
export function assistantText(response: unknown, re: PyRegex | undefined, failure: string): string {
  const output = (response as Obj | undefined)?.output;
  const items = (Array.isArray(output) ? output : []) as Obj[];
  for (let i = items.length - 1; i >= 0; i--) {
    const o = items[i]!;
    if (o?.type !== "message" || o.role !== "assistant") continue;
    let text: string;
    if (Array.isArray(o.content)) text = pyStrip((o.content as Obj[]).map((c) => c?.text).filter((t): t is string => typeof t === "string").join("\n"));
    else if (typeof o.content === "string") text = pyStrip(o.content);
    else return failure;
    if (text === "") return failure;
    return lastMatchText(text, re) ?? text;
  }
  return failure;
}
