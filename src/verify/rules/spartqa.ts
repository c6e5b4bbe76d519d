/**
 * SpartQA CO (choose-object) scoring: the final answer is pulled from the response ("Final answer:"
 * lines and friends, reasoning stripped) and resolved to exactly one of four labels — the two story
 * objects, "both of them", "none of them" — verbatim (article-insensitive) or by an unambiguous
 * containment; an answer naming two labels resolves to nothing.
 */
import { pyRegex } from "../../util/py-regex.ts";
import { pySplit, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

/** The two fixed labels. */
export const BOTH_LABEL = "both of them";
export const NONE_LABEL = "none of them";
const BOTH_ALIASES = new Set(["both", "both of them", "both objects", "both of the objects", "both of these"]);
const NONE_ALIASES = new Set(["none", "none of them", "none of the objects", "neither", "neither of them", "neither object", "no object", "dk", "do not know", "dont know"]);
const PUNCT = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** strip, lower, drop ASCII punctuation, collapse whitespace. */
export function normalize(text: string): string {
  return pySplit([...pyStrip(text).toLowerCase()].filter((c) => !PUNCT.has(c)).join("")).join(" ");
}

const THINK = pyRegex("<think>.*?</think>", { ignoreCase: true, dotAll: true });
const CHANNEL = pyRegex("<\\|channel\\>thought\\s*.*?<channel\\|>", { ignoreCase: true, dotAll: true });
const LEAD_BULLETS = pyRegex("^[-*•\\s]+");
const EDGE_STARS = pyRegex("^\\*+|\\*+$");
const THINK_TAG = pyRegex("</?think>", { ignoreCase: true });
const FLAGS = { ignoreCase: true, multiline: true };
const PATTERNS = [
  "(?:^|\\n)\\s*(?:[*_`#>\\-\\s]*)final\\s+answer(?:\\s+is)?\\s*(?:[*_`\\s])*[:\\-]\\s*(.+)",
  "(?:^|\\n)\\s*(?:[*_`#>\\-\\s]*)selected\\s+answer(?:\\s+is)?\\s*(?:[*_`\\s])*[:\\-]\\s*(.+)",
  "(?:^|\\n)\\s*(?:[*_`#>\\-\\s]*)answer(?:\\s+is)?\\s*(?:[*_`\\s])*[:\\-]\\s*(.+)",
  "\\b(?:the\\s+)?(?:final\\s+)?answer\\s+(?:is|would\\s+be|should\\s+be)\\s*[:\\-]?\\s*(.+)",
  "\\bselected\\s+(?:option|answer)\\s+(?:is|would\\s+be)\\s*[:\\-]?\\s*(.+)",
].map((p) => pyRegex(p, FLAGS));
const ARTICLE = pyRegex("^(?:a|an|the)\\s+");
// Python's str.splitlines boundaries.
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

function cleanCandidate(text: string): string {
  let t = pyStrip(text).replace(LEAD_BULLETS.re, "");
  t = pyStrip(t.replace(EDGE_STARS.re, ""));
  t = pyStrip(t.replace(THINK_TAG.re, ""));
  return pyStrip(pyStrip(t), "\"'` ");
}

function splitlines(s: string): string[] {
  const parts = s.split(LINE_BREAKS);
  if (parts.length > 1 && parts.at(-1) === "") parts.pop();
  return s === "" ? [] : parts;
}

/** The model's answer line: the last labelled answer of the first pattern that finds one, cleaned; else the first line. */
export function extractAnswer(raw: string): string {
  let text = pyStrip(raw.replace(THINK.re, "").replace(CHANNEL.re, ""));
  let extracted: string | undefined;
  for (const p of PATTERNS) {
    const found = p.finditer(text).map((m) => pyStrip(m[1]!)).filter((c) => c && normalize(c) !== "candidate answer");
    if (found.length) {
      extracted = found.at(-1)!;
      break;
    }
  }
  if (extracted !== undefined) text = extracted;
  const lines = splitlines(text).filter((l) => pyStrip(l)).map(cleanCandidate).filter((l) => l && !["final answer", "answer"].includes(normalize(l)));
  if (lines.length === 0) return "";
  if (extracted === undefined && lines.length > 1) {
    const first = normalize(lines[0]!);
    if (["thinking process", "analysis", "the user wants", "we need"].some((p) => first.startsWith(p))) return lines.at(-1)!;
  }
  return lines[0]!;
}

/** Article-insensitive comparison key of a label or prediction. */
export function labelKey(text: string): string {
  return pyStrip(normalize(text).replace(ARTICLE.re, ""));
}

/** The four CO labels: the story objects, then both / none (duplicates by key dropped). */
export function candidateLabels(options: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const label of [...options, BOTH_LABEL, NONE_LABEL]) {
    const key = labelKey(label);
    if (key && !seen.has(key)) {
      seen.add(key);
      out.push(pyStrip(label));
    }
  }
  return out;
}

/** Resolve an answer to one label: verbatim key, both/none aliases, or exactly one contained label; else null. */
export function matchLabel(prediction: string, labels: string[]): string | null {
  const key = labelKey(prediction);
  if (!key) return null;
  const byKey = new Map<string, string>();
  for (const l of labels) byKey.set(labelKey(l), l);
  if (byKey.has(key)) return byKey.get(key)!;
  const values = [...byKey.values()];
  if (BOTH_ALIASES.has(key) && values.includes(BOTH_LABEL)) return byKey.get(labelKey(BOTH_LABEL))!;
  if (NONE_ALIASES.has(key) && values.includes(NONE_LABEL)) return byKey.get(labelKey(NONE_LABEL))!;
  let hits = [...byKey.keys()].filter((k) => k && key.includes(k));
  hits = hits.filter((h) => !hits.some((o) => o !== h && o.includes(h)));
  return hits.length === 1 ? byKey.get(hits[0]!)! : null;
}

/** The verify fields for one response against the gold label and options. */
export function scoreSpartqa(text: string, gold: string, options: string[]): Obj {
  const prediction = extractAnswer(text);
  const labels = candidateLabels(options.length ? options : [gold]);
  const predicted = matchLabel(prediction, labels);
  const goldKey = labelKey(gold);
  const correct = goldKey !== "" && predicted !== null && labelKey(predicted) === goldKey;
  return {
    reward: correct ? 1 : 0,
    exact: correct && labelKey(prediction) === goldKey,
    parsed: normalize(prediction) !== "",
    extracted: [...prediction].slice(0, 200).join(""),
    predicted_label: predicted ?? "",
  };
}

/** Upstream compute_metrics: mean reward, exact / parse / label-resolve rates, accuracy on both / none golds. */
export function spartqaMetrics(tasks: Obj[][]): Obj {
  const rows = tasks.flat();
  if (rows.length === 0) return {};
  const out: Obj = {};
  const rewards = rows.filter((r) => typeof r.reward === "number" || typeof r.reward === "boolean").map((r) => Number(r.reward));
  if (rewards.length) {
    out.mean_reward = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    out.count = rewards.length;
  }
  const rate = (f: (r: Obj) => boolean) => rows.filter(f).length / rows.length;
  out.exact_match_rate = rate((r) => truthy(r.exact));
  out.parse_rate = rate((r) => truthy(r.parsed));
  out.label_resolve_rate = rate((r) => truthy(r.predicted_label));
  for (const label of [BOTH_LABEL, NONE_LABEL]) {
    const slice = rows.filter((r) => labelKey(r.target === undefined || r.target === null ? (r.target === null ? "None" : "") : String(r.target)) === labelKey(label));
    if (slice.length) out[`accuracy_${label.replaceAll(" ", "_")}`] = slice.filter((r) => r.reward === 1 || r.reward === true).length / slice.length;
  }
  return out;
}

const truthy = (v: unknown): boolean => !(v === undefined || v === null || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0));

/** Upstream get_key_metrics. */
export function spartqaKeyMetrics(am: Obj): Obj {
  return Object.fromEntries(["mean_reward", "exact_match_rate"].filter((k) => k in am).map((k) => [k, am[k]]));
}
