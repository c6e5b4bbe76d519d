/**
 * RAGTruth case-level hallucination detection: the model answers `{"hallucination list": [...]}`
 * (reasoning tags and a JSON fence stripped first); reward 1 when "any hallucination?" matches the
 * gold `is_halu`. Metrics add corpus-level precision / recall / F1, overall and per task type.
 */
import { pyDumps } from "../../util/py-json-dumps.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { PY_SPACE_CLASS, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

const FENCE_WHOLE = pyRegex("^```(?:json)?\\s*\\r?\\n?(.*)\\r?\\n?```\\s*$", { dotAll: true, ignoreCase: true });
const FENCE_INNER = pyRegex("```(?:json)?\\s*\\r?\\n?(.*?)```", { dotAll: true, ignoreCase: true });
const LEAD_WS = new RegExp(`^[${PY_SPACE_CLASS}]+`, "u");
const reEscape = (s: string) => s.replace(/[^\p{L}\p{N}_]/gu, (c) => `\\${c}`);

/** Drop `<tag>…</tag>` pairs, everything up to an orphan closing tag, and orphan opening tags; stripped. */
export function stripThink(text: string, tag = "think"): string {
  if (!text) return "";
  const t = reEscape(tag);
  let s = text.replace(pyRegex(`<${t}>.*?</${t}>`, { dotAll: true, ignoreCase: true }).re, "");
  // `.*</tag>\s*` (DOTALL, greedy) removes everything up to the last closing tag and the whitespace after it;
  // done directly, as the regex backtracks quadratically on long texts without one.
  const closes = [...s.matchAll(pyRegex(`</${t}>`, { ignoreCase: true }).re)];
  const last = closes.at(-1);
  if (last) s = s.slice(last.index + last[0].length).replace(LEAD_WS, "");
  s = s.replace(pyRegex(`<${t}>\\s*`, { ignoreCase: true }).re, "");
  return pyStrip(s);
}

/** The body of a whole-text JSON fence, else of the first non-empty inner fence, else the stripped text. */
export function stripJsonFence(text: string): string {
  if (!text || !text.includes("```")) return text;
  const s = pyStrip(text);
  const whole = FENCE_WHOLE.match(s);
  if (whole) return pyStrip(whole[1]!);
  const inner = FENCE_INNER.search(s);
  if (inner) {
    const c = pyStrip(inner[1]!);
    if (c) return c;
  }
  return s;
}

/** The answer object, or null when it is not a JSON object. */
export function parseResponse(raw: string, tag = "think"): Obj | null {
  const cleaned = stripJsonFence(stripThink(raw, tag));
  if (!cleaned) return null;
  try {
    const v = JSON.parse(cleaned) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null;
  } catch {
    return null;
  }
}

/** A non-empty "hallucination list". */
export function hasHallucination(parsed: Obj | null): boolean {
  const l = parsed?.["hallucination list"];
  return Array.isArray(l) && l.length > 0;
}

/** The verify fields of one response text against the gold flag. */
export function scoreRagtruth(text: string, isHalu: boolean, tag = "think"): Obj {
  const parsed = parseResponse(text, tag);
  const pred = hasHallucination(parsed);
  const list = parsed?.["hallucination list"];
  const extracted = Array.isArray(list) ? pyDumps(list, false) : "";
  return { reward: pred === isHalu ? 1 : 0, is_halu: isHalu ? 1 : 0, pred_halu: pred ? 1 : 0, parse_fail: parsed === null ? 1 : 0, extracted: [...extracted].slice(0, 500).join("") };
}

const truthy = (v: unknown): boolean => !(v === undefined || v === null || v === false || v === 0 || v === "");
const isNum = (v: unknown) => typeof v === "number" || typeof v === "boolean";

function f1(tp: number, fp: number, fn: number): Obj {
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

function confusion(group: Obj[]): Obj {
  const tp = group.filter((r) => truthy(r.pred_halu) && truthy(r.is_halu)).length;
  const fp = group.filter((r) => truthy(r.pred_halu) && !truthy(r.is_halu)).length;
  const fn = group.filter((r) => !truthy(r.pred_halu) && truthy(r.is_halu)).length;
  const rewards = group.filter((r) => isNum(r.reward)).map((r) => Number(r.reward));
  return { ...f1(tp, fp, fn), accuracy: rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : 0, count: group.length };
}

/** Upstream compute_metrics: mean reward, parse-fail rate, precision / recall / F1 overall and per task type. */
export function ragtruthMetrics(tasks: Obj[][]): Obj {
  const rows = tasks.flat();
  const out: Obj = {};
  const rewards = rows.filter((r) => isNum(r.reward)).map((r) => Number(r.reward));
  if (rewards.length) {
    out.mean_reward = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    out.count = rewards.length;
  }
  if (rows.length === 0) return out;
  out.parse_fail_rate = rows.reduce((a, r) => a + Number(r.parse_fail ?? 0), 0) / rows.length;
  const overall = confusion(rows);
  for (const k of ["precision", "recall", "f1"]) out[k] = overall[k];
  const byType = new Map<string, Obj[]>();
  for (const r of rows) {
    const k = truthy(r.task_type) ? String(r.task_type) : "unknown";
    byType.set(k, [...(byType.get(k) ?? []), r]);
  }
  for (const [type, group] of [...byType].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) for (const [k, v] of Object.entries(confusion(group))) out[`task_type/${type}/${k}`] = v;
  return out;
}

/** Upstream get_key_metrics. */
export function ragtruthKeyMetrics(am: Obj): Obj {
  const out: Obj = {};
  for (const k of ["mean_reward", "f1", "precision", "recall"]) if (k in am) out[k] = am[k];
  for (const [k, v] of Object.entries(am)) if (k.endsWith("/f1") || k.endsWith("/accuracy")) out[k] = v;
  return out;
}
