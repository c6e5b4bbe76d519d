/**
 * citation_if: did the answer cite, in the grammar the row names, only IDs that exist and the ones
 * that were required — and does an answer exist besides the citations? Binary reward through a gate
 * sequence (structural, answer presence, strict malformed-attempt scan, must-cite, no-hallucination,
 * correctness); `mode: no_cite` rows reward the absence of any citation. The answer's content is
 * never graded. Grammar patterns are built per row from the row's Python `id_regex`.
 */
import { PyRegexError, pyRegex, translatePyRegex } from "../../util/py-regex.ts";
import { pyInt } from "../../util/py-int.ts";
import { pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

/** The text a tool route answers during a rollout: the agent (max_steps 1) then stops, and gate 0 scores the call 0. */
export const TERMINAL_TOOL_RESPONSE = "No further tool results are available. Provide your final answer.";

/** The broad ID-shaped token detector; a superset of every row's id_regex (numeric leakage on random-ID rows too). */
const ATTEMPT = pyRegex("citation_[A-Za-z0-9_:]+", { ignoreCase: true });
const WORD = pyRegex("\\w");

const DEFAULT_ID_REGEX: Record<string, string> = { full_source: "citation_[0-9]+", snippet: "citation_[0-9]+:snippet_[0-9]+" };

interface Grammar {
  /** Python pattern; `{IDS}` is the row's ID sub-pattern; group 1 holds the ID(s). */
  template: string;
  /** Comma-separated ID lists allowed inside one span. */
  multi: boolean;
  dotAll?: boolean;
  /** Group holding the wrapped claim; an empty claim is not a citation. */
  claimGroup?: number;
  /** Tag grammars: opening/closing markers counted for the balance check. */
  tags?: boolean;
  /** Reserved dev-holdout grammar. */
  holdout: boolean;
}

const TAG_OPEN = pyRegex("<cite\\b", { ignoreCase: true });
const TAG_CLOSE = pyRegex("</cite\\s*>", { ignoreCase: true });

/** The grammar table (9 trained, 2 holdout), as upstream's scorer defines it. */
export const GRAMMARS: Record<string, Grammar> = {
  cite_xml: { template: "<cite>({IDS})</cite>", multi: true, tags: true, holdout: false },
  // The lookahead keeps markdown links [citation_N](url) out.
  ascii_brackets: { template: "\\[({IDS})\\](?!\\()", multi: false, holdout: false },
  // (.*?) with an empty-claim filter afterwards, as citation evaluators parse it.
  claim_wrap_xml: { template: '<cite index="({IDS})">(.*?)</cite>', multi: true, dotAll: true, claimGroup: 2, tags: true, holdout: false },
  // U+3010/U+3011 exactly.
  fullwidth_brackets: { template: "【({IDS})】", multi: false, holdout: false },
  ref_colon: { template: "\\[ref:({IDS})\\]", multi: false, holdout: false },
  double_angle: { template: "<<({IDS})>>", multi: false, holdout: false },
  web_brackets: { template: "\\[web:({IDS})\\]", multi: false, holdout: false },
  paren_part: { template: "\\(({IDS})\\)", multi: false, holdout: false },
  markdown_footnote: { template: "\\[\\^({IDS})\\]", multi: false, holdout: false },
  curly_double: { template: "\\{\\{({IDS})\\}\\}", multi: false, holdout: true },
  angle_pipe: { template: "<ref\\|({IDS})>", multi: false, holdout: true },
};

const compiled = new Map<string, RegExp>();

/** A grammar's pattern for one row's ID scheme, with match indices (`d`) for the claim group. */
export function compileGrammar(name: string, idRegex: string): RegExp {
  const key = `${name}\u0000${idRegex}`;
  let re = compiled.get(key);
  if (!re) {
    const g = GRAMMARS[name]!;
    const ids = g.multi ? `(?:${idRegex})(?:,(?:${idRegex}))*` : `(?:${idRegex})`;
    const t = translatePyRegex(g.template.replace("{IDS}", ids), { dotAll: g.dotAll });
    try {
      re = new RegExp(t.source, `gd${t.flags}`);
    } catch (e) {
      throw new PyRegexError("unsupported", `Python regex ${JSON.stringify(idRegex)} cannot be translated to JavaScript: ${(e as Error).message}`, idRegex);
    }
    if (compiled.size > 512) compiled.clear();
    compiled.set(key, re);
  }
  return re;
}

/** `(output_text, function_call_count)` of a Responses API output: assistant message text parts joined by newlines, stripped. */
export function responseShape(response: unknown): { text: string; functionCalls: number } {
  const parts: string[] = [];
  let functionCalls = 0;
  const output = (response as Obj | null)?.output;
  for (const item of Array.isArray(output) ? output : []) {
    if (!item || typeof item !== "object" || Array.isArray(item)) continue;
    const it = item as Obj;
    if (it.type === "function_call") functionCalls++;
    if (it.type !== "message" || it.role !== "assistant") continue;
    for (const block of Array.isArray(it.content) ? it.content : []) {
      const b = block as Obj | null;
      if (b && typeof b === "object" && (b.type === "output_text" || b.type === "text") && typeof b.text === "string") parts.push(b.text);
    }
  }
  return { text: pyStrip(parts.filter((p) => p).join("\n")), functionCalls };
}

function spansOf(re: RegExp, g: Grammar, text: string): RegExpExecArray[] {
  re.lastIndex = 0;
  const out: RegExpExecArray[] = [];
  for (const m of text.matchAll(re)) {
    if (g.claimGroup !== undefined && pyStrip(m[g.claimGroup] ?? "") === "") continue;
    out.push(m);
  }
  return out;
}

/** Blank every span except, when the grammar has one, its claim (the answer may live inside a claim wrap). */
function blank(spans: RegExpExecArray[], text: string, keepClaim?: number): string {
  if (spans.length === 0) return text;
  const out = text.split("");
  for (const m of spans) {
    const keep = keepClaim !== undefined ? m.indices?.[keepClaim] : undefined;
    for (let i = m.index; i < m.index + m[0].length; i++) if (!keep || i < keep[0] || i >= keep[1]) out[i] = " ";
  }
  return out.join("");
}

const uniq = (xs: string[]): string[] => [...new Set(xs)];
const count = (re: ReturnType<typeof pyRegex>, text: string): number => re.finditer(text).length;

/** Verdict of one answer: reward 1/0 and upstream's `match_details`. A bad `id_regex` throws PyRegexError. */
export function scoreCitationIf(text: string, functionCalls: number, verifier: Obj): { reward: number; details: Obj } {
  const grammarName = verifier.grammar ?? "";
  const idKind = verifier.id_kind ?? "full_source";
  const validSet = new Set(Array.isArray(verifier.valid_id_set) ? verifier.valid_id_set : []);
  const expected = verifier.expected_ids;
  const minValid = pyInt(verifier.min_valid_citations ?? 1);
  const mode = verifier.mode ?? "cite";
  if (typeof grammarName !== "string" || !Object.hasOwn(GRAMMARS, grammarName)) return { reward: 0, details: { gate_failed: "unknown_grammar", grammar: grammarName } };
  const g = GRAMMARS[grammarName]!;
  const explicit = verifier.id_regex;
  const idRegex = typeof explicit === "string" && explicit ? explicit : (DEFAULT_ID_REGEX[String(idKind)] ?? DEFAULT_ID_REGEX.full_source!);
  const re = compileGrammar(grammarName, idRegex);
  const structuralOk = pyStrip(text) !== "" && functionCalls === 0;

  let parsed: string[] = [];
  let valid: string[] = [];
  let invalid: string[] = [];
  let attemptHits = false;
  const details = (gate: string | null, extra: Obj = {}): Obj => ({
    gate_failed: gate,
    mode,
    grammar: grammarName,
    id_kind: idKind,
    id_regex: idRegex,
    structural_ok: structuralOk,
    function_call_count: functionCalls,
    attempt_hits: attemptHits,
    bare_id_hits: attemptHits,
    parsed_ids: parsed,
    cited_ids: valid,
    valid_cited: valid,
    invalid_cited: invalid,
    num_valid_cited: valid.length,
    expected_ids: null,
    missed_ids: [],
    over_cap: false,
    ...extra,
  });
  const fail = (gate: string, extra: Obj = {}) => ({ reward: 0, details: details(gate, extra) });

  if (!structuralOk) return fail("structural");
  const spans = spansOf(re, g, text);
  parsed = uniq(spans.flatMap((m) => m[1]!.split(",")));
  valid = parsed.filter((i) => validSet.has(i));
  invalid = parsed.filter((i) => !validSet.has(i));
  attemptHits = ATTEMPT.search(text) !== null;

  if (mode === "no_cite") {
    const anyMarkup = spans.length > 0 || (g.tags === true && TAG_OPEN.search(text) !== null);
    const ok = !attemptHits && !anyMarkup;
    return { reward: ok ? 1 : 0, details: details(ok ? null : "no_cite") };
  }
  // Gate 0b: markup alone is not an answer; claim text counts as answer.
  if (WORD.search(blank(spans, text, g.claimGroup)) === null) return fail("no_answer");
  // Gate 1 (strict): any ID-shaped token outside well-formed spans, or unbalanced tags.
  const balanced = !g.tags || (count(TAG_OPEN, text) === spans.length && spans.length === count(TAG_CLOSE, text));
  if (ATTEMPT.search(blank(spans, text)) !== null || !balanced) return fail("malformed_attempt");
  if (valid.length < minValid) return fail("must_cite");
  if (invalid.length > 0) return fail("no_hallucination");

  let missed: string[] = [];
  let overCap = false;
  const expectedList = expected === null || expected === undefined ? null : Array.isArray(expected) ? expected.map(String) : [...String(expected)];
  if (expectedList !== null) {
    const slack = pyInt(verifier.expected_slack ?? 1);
    const expectedSet = new Set(expectedList);
    const cited = new Set(valid);
    missed = [...expectedSet].filter((i) => !cited.has(i)).sort();
    overCap = valid.length > expectedSet.size + slack;
    if (missed.length > 0 || overCap) return fail(missed.length > 0 ? "correctness_missed_gold" : "correctness_over_cap", { expected_ids: expectedList, missed_ids: missed, over_cap: overCap });
  }
  return { reward: 1, details: details(null, { expected_ids: expectedList, missed_ids: missed, over_cap: overCap }) };
}
