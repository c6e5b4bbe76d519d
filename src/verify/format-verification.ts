/**
 * format_verification scoring: `regex` / `inline_prose` (lines matching any Python pattern, at least
 * `verify_min_matches`) and `string_match` (every expected marker present, no spurious pattern hit).
 */
import { pyRegex } from "./ifeval/py-str.ts";

type Obj = Record<string, unknown>;

/** The verdict: reward and upstream's `match_details`. */
export interface FormatVerdict {
  reward: number;
  details: Obj;
}

/** Thrown for a verifier spec upstream rejects (unknown type, bad pattern): the request fails (500). */
export class FormatSpecError extends Error {
  override name = "FormatSpecError";
}

/** Concatenated `output_text` parts of the response's message items. */
export function assistantText(response: Obj): string {
  const parts: string[] = [];
  for (const item of (Array.isArray(response.output) ? response.output : []) as Obj[]) {
    if (item?.type !== "message" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c?.type === "output_text" && typeof c.text === "string") parts.push(c.text);
  }
  return parts.join("");
}

function compile(p: unknown, where: string): RegExp {
  if (typeof p !== "string") throw new FormatSpecError(`${where}: a pattern must be a string, got ${JSON.stringify(p)}`);
  try {
    return pyRegex(p);
  } catch (e) {
    throw new FormatSpecError(`${where}: pattern ${JSON.stringify(p)} does not compile: ${(e as Error).message}`);
  }
}

function verifyRegex(text: string, v: Obj): FormatVerdict {
  const patterns = (Array.isArray(v.verify_regex) ? v.verify_regex : []).map((p) => compile(p, "verifier.verify_regex"));
  const min = v.verify_min_matches === undefined ? 1 : v.verify_min_matches;
  if (typeof min !== "number") throw new FormatSpecError(`verifier.verify_min_matches must be a number, got ${JSON.stringify(min)}`);
  let lines = 0;
  for (const line of text.split("\n")) if (patterns.some((re) => re.test(line))) lines++;
  const passed = lines >= min;
  return { reward: passed ? 1.0 : 0.0, details: { matching_lines: lines, min_matches: min, passed } };
}

function verifyStringMatch(text: string, v: Obj): FormatVerdict {
  const expected = (Array.isArray(v.expected_markers) ? v.expected_markers : []) as unknown[];
  const missing = expected.filter((m) => typeof m !== "string" || !text.includes(m));
  const spurious: string[] = [];
  const patterns = Array.isArray(v.patterns) ? v.patterns : [];
  if (patterns.length) {
    const set = new Set(expected);
    for (const p of patterns) {
      const re = compile(p, "verifier.patterns");
      for (const m of text.matchAll(new RegExp(re.source, `${re.flags}g`))) if (!set.has(m[0])) spurious.push(m[0]);
    }
  }
  const passed = missing.length === 0 && spurious.length === 0;
  return { reward: passed ? 1.0 : 0.0, details: { expected, missing, spurious, passed } };
}

/** Grade `text` against one verifier spec. */
export function verifyFormat(text: string, verifier: Obj): FormatVerdict {
  const type = verifier.type ?? "";
  if (type === "regex" || type === "inline_prose") return verifyRegex(text, verifier);
  if (type === "string_match") return verifyStringMatch(text, verifier);
  throw new FormatSpecError(`Verifier type must be 'regex' or 'string_match', got ${JSON.stringify(type)}`);
}
