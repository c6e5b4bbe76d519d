/**
 * swerl_llm_judge: a SWE multiple-choice answer read from the model's last `<solution>…</solution>`
 * block (lenient: the first standalone letter inside; strict: the block holds one letter, optionally
 * bracketed) and graded exactly against the expected letter(s), restricted to the row's option keys.
 */
import { PY_SPACE_CLASS, pyIsAlpha, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

/** The grading modes upstream accepts. */
export const SWERL_GRADING_MODES = ["lenient", "strict"] as const;
/** One grading mode. */
export type SwerlGradingMode = (typeof SWERL_GRADING_MODES)[number];

const S = `[${PY_SPACE_CLASS}]`;
// Python's `.*?` under DOTALL and `\s` (Unicode whitespace) — hence PY_SPACE_CLASS, not JS's \s.
const LENIENT = new RegExp(`<solution>${S}*([\\s\\S]*?)${S}*</solution>`, "giu");
const STRICT = new RegExp(`<solution>${S}*\\[?([A-Za-z])\\]?${S}*</solution>`, "u");

/** Every assistant message's text parts (or string content), joined by newlines and stripped. */
export function allAssistantText(response: unknown): string {
  const output = (response as Obj | null)?.output;
  const texts: string[] = [];
  for (const o of (Array.isArray(output) ? output : []) as Obj[]) {
    if (o?.type !== "message" || o.role !== "assistant") continue;
    if (typeof o.content === "string") texts.push(o.content);
    else if (Array.isArray(o.content)) for (const c of o.content as Obj[]) if (typeof c?.text === "string") texts.push(c.text);
  }
  return pyStrip(texts.join("\n"));
}

/** The upper-cased single-letter keys of the options (only each entry's first key counts, as upstream). */
export function allowedLetters(options: Obj[] | null | undefined): Set<string> {
  const out = new Set<string>();
  for (const entry of options ?? []) {
    const first = Object.keys(entry)[0];
    if (first !== undefined && [...first].length === 1 && pyIsAlpha(first)) out.add(first.toUpperCase());
  }
  return out;
}

/** Expected answers as distinct upper-case single letters, in order (anything else dropped). */
export function expectedLetters(expected: string | string[] | null | undefined): string[] {
  const raw = expected == null ? [] : typeof expected === "string" ? [expected] : expected.filter((x) => typeof x === "string");
  const out: string[] = [];
  for (const x of raw) {
    const s = pyStrip(x).toUpperCase();
    if ([...s].length === 1 && pyIsAlpha(s) && !out.includes(s)) out.push(s);
  }
  return out;
}

/** Lenient: in the last solution block, the first letter with no letter on either side; null if none or not an option. */
export function extractLenient(text: string, allowed: Set<string>): string | null {
  const all = [...text.matchAll(LENIENT)];
  if (all.length === 0) return null;
  const cps = [...pyStrip(all[all.length - 1]![1]!)];
  const alpha = (c: string | undefined) => c !== undefined && pyIsAlpha(c);
  for (let i = 0; i < cps.length; i++) {
    if (!alpha(cps[i]) || alpha(cps[i - 1]) || alpha(cps[i + 1])) continue;
    const up = cps[i]!.toUpperCase();
    return allowed.has(up) ? up : null;
  }
  return null;
}

/** Strict: the first block holding exactly one ASCII letter (optionally `[X]`); null if none or not an option. */
export function extractStrict(text: string, allowed: Set<string>): string | null {
  const m = STRICT.exec(text);
  if (!m) return null;
  const up = m[1]!.toUpperCase();
  return allowed.has(up) ? up : null;
}

/** The verify fields of one row: reward, the gold letter (or list when not exactly one), the extracted letter. */
export function gradeSwerlChoice(response: unknown, row: { options?: Obj[] | null; expected_answer?: string | string[] | null; grading_mode?: SwerlGradingMode }): { reward: number; expected_answer: string | string[]; extracted_answer: string | null } {
  const text = allAssistantText(response);
  const allowed = allowedLetters(row.options);
  const mode = row.grading_mode ?? "lenient";
  const pred = mode === "strict" ? extractStrict(text, allowed) : extractLenient(text, allowed);
  const golds = expectedLetters(row.expected_answer).filter((g) => allowed.size === 0 || allowed.has(g));
  return { reward: pred !== null && golds.includes(pred) ? 1.0 : 0.0, expected_answer: golds.length === 1 ? golds[0]! : golds, extracted_answer: pred };
}
