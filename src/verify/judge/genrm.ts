/**
 * GenRM pairwise comparison (upstream resources_servers/genrm_compare/utils.py): which pairs of a
 * group to compare, reading `{"score_1", "score_2", "ranking"}` out of a GenRM answer, and turning a
 * group's pairwise results into one reward per response (simple tie-breaker on the ranking, then
 * optional length bonuses and style penalties, all relative to the group).
 */
import { pyDumpsSorted } from "../../util/py-json-dumps.ts";
import { PY_SPACE_CLASS, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;
/** One comparison's outcome: (score_1, score_2, ranking). */
export type Triple = [number, number, number];
/** Which comparison: (response i, response j, judge pass). */
export type PairMeta = [number, number, number];

/** The strategies upstream supports. */
export const COMPARISON_STRATEGIES = ["all_pairs", "circular"] as const;
/** The aggregators upstream supports. */
export const AGGREGATOR_METHODS = ["simple_tiebreaker"] as const;
/** Rankings run 1–6; below the midpoint response_1 wins the tie. */
export const RANKING_MIDPOINT = 3.5;
/** What a response with no answer text is shown to the GenRM as. */
export const EMPTY_OUTPUT_PLACEHOLDER = "None";

/** A GenRM answer with no usable scores (upstream GenRMOutputParseError). */
export class GenrmParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GenrmParseError";
  }
}

/** Pairs to compare: every pair (i < j) or each response with the next (wrapping). */
export function comparisonPairs(strategy: string, n: number): [number, number][] {
  if (!(COMPARISON_STRATEGIES as readonly string[]).includes(strategy)) throw new Error(`Unknown comparison strategy: '${strategy}'. Supported: ['all_pairs', 'circular']`);
  if (n < 2) throw new Error(`Need at least 2 responses for comparison, got ${n}`);
  const out: [number, number][] = [];
  if (strategy === "all_pairs") {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push([i, j]);
  } else for (let i = 0; i < n; i++) out.push([i, (i + 1) % n]);
  return out;
}

/** The group key of a prompt: sha256 of `json.dumps({"input": …, "principle": …}, sort_keys=True)`. */
export function promptKey(input: unknown, principle: string | null | undefined): string {
  const text = pyDumpsSorted({ input: input ?? [], principle: principle ?? null });
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** Python `float(v)` of a JSON value, or undefined where it raises. */
function pyFloat(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v !== "string") return undefined;
  const s = pyStrip(v).replaceAll(/(?<=\d)_(?=\d)/g, "");
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : undefined;
}

/** Top-level `{…}` spans of `text`, found by brace counting outside strings (upstream's scanner, quirks included). */
export function findJsonObjects(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === "{") {
      let depth = 0;
      let inString = false;
      let escape = false;
      for (let j = i; j < text.length; j++) {
        const ch = text[j];
        if (escape) {
          escape = false;
          continue;
        }
        if (ch === "\\" && inString) {
          escape = true;
          continue;
        }
        if (ch === '"') {
          inString = !inString;
          continue;
        }
        if (inString) continue;
        if (ch === "{") depth++;
        else if (ch === "}") {
          depth--;
          if (depth === 0) {
            out.push(text.slice(i, j + 1));
            i = j;
            break;
          }
        }
      }
    }
    i++;
  }
  return out;
}

function tryParse(json: string, defaultScore: number, defaultRanking: number): Triple | null {
  let parsed: unknown;
  try {
    // (Python's json.loads also reads bare NaN / Infinity; a GenRM answer carrying them is not read here.)
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  let p = parsed as Obj;
  if (p.overall && typeof p.overall === "object" && !Array.isArray(p.overall)) p = p.overall as Obj;
  if (!("score_1" in p) && !("score_2" in p) && !("ranking" in p)) return null;
  const s1 = "score_1" in p ? pyFloat(p.score_1) : defaultScore;
  const s2 = "score_2" in p ? pyFloat(p.score_2) : defaultScore;
  const r = "ranking" in p ? pyFloat(p.ranking) : defaultRanking;
  return s1 === undefined || s2 === undefined || r === undefined ? null : [s1, s2, r];
}

const FENCED = new RegExp(`\`\`\`json[${PY_SPACE_CLASS}]*([\\s\\S]*?)[${PY_SPACE_CLASS}]*\`\`\``, "giu");

/** Scores from a GenRM answer: the first valid object inside a ```json fence, else the last valid `{…}` anywhere. */
export function parseGenrmOutput(output: string, defaultScore: number, defaultRanking: number): Triple {
  for (const m of output.matchAll(FENCED)) {
    for (const obj of findJsonObjects(m[1]!)) {
      const r = tryParse(obj, defaultScore, defaultRanking);
      if (r) return r;
    }
  }
  let last: Triple | null = null;
  for (const obj of findJsonObjects(output)) last = tryParse(obj, defaultScore, defaultRanking) ?? last;
  if (last) return last;
  const chars = [...output];
  throw new GenrmParseError(`No parseable JSON found in GenRM output: ${chars.length > 200 ? `${chars.slice(0, 200).join("")}...` : output}`);
}

/** (reasoning summary text, answer text) of a Responses object. */
export function extractFromResponse(response: unknown): [string, string] {
  let reasoning = "";
  let answer = "";
  const output = (response as Obj | null)?.output;
  if (!response || typeof response !== "object" || !Array.isArray(output)) return [reasoning, answer];
  for (const item of output as Obj[]) {
    if (!item || typeof item !== "object") continue;
    if (item.type === "reasoning" && Array.isArray(item.summary)) {
      for (const s of item.summary as Obj[]) if (s && typeof s === "object" && "text" in s) reasoning += String(s.text ?? "");
    } else if (item.type === "message" && Array.isArray(item.content)) {
      for (const c of item.content as Obj[]) if (c && typeof c === "object" && c.type === "output_text") answer += String(c.text ?? "");
    }
  }
  return [reasoning, answer];
}

/** The answer text shown to the GenRM ("None" when empty). */
export function outputTextOf(response: unknown): string {
  const [, answer] = extractFromResponse(response);
  return pyStrip(answer) ? answer : EMPTY_OUTPUT_PLACEHOLDER;
}

// ---- style density (Arena-Hard style elements + emoji), code blocks excluded ----
const CODE_BLOCK = /```[\s\S]*?```/g;
const EMOJI = /[\u{1f600}-\u{1f64f}\u{1f300}-\u{1f5ff}\u{1f680}-\u{1f6ff}\u{1f1e0}-\u{1f1ff}\u{2702}-\u{27b0}\u{24c2}-\u{1f251}\u{1f900}-\u{1f9ff}\u{1fa00}-\u{1fa6f}\u{1fa70}-\u{1faff}\u{2600}-\u{26ff}\u{2700}-\u{27bf}]/gu;
const S = `[${PY_SPACE_CLASS}]`;
// Python's MULTILINE `^`: start of text or after "\n" only (JS's m flag also breaks at \r, U+2028, U+2029).
const BOL = "(?:(?<![\\s\\S])|(?<=\\n))";
const count = (re: RegExp, text: string) => text.match(re)?.length ?? 0;

/** Headers, list items, bold spans and emoji outside code blocks. */
export function countStyleElements(text: string): { header_count: number; list_count: number; bold_count: number; emoji_count: number } {
  const t = text.replace(CODE_BLOCK, "");
  return {
    header_count: count(new RegExp(`${BOL}#{1,6}${S}`, "gu"), t),
    list_count: count(new RegExp(`${BOL}${S}*\\p{Nd}+\\.${S}`, "gu"), t) + count(new RegExp(`${BOL}${S}*[-*+]${S}`, "gu"), t),
    bold_count: count(/\*\*[^*\n]+\*\*/gu, t) + count(/__[^_\n]+__/gu, t),
    emoji_count: count(EMOJI, t),
  };
}

/** Style elements per character (code blocks excluded from both); 0 for empty text. */
export function styleDensity(text: string): number {
  const t = text.replace(CODE_BLOCK, "");
  const len = [...pyStrip(t)].length;
  if (len <= 0) return 0;
  const c = countStyleElements(t);
  return (c.header_count + c.list_count + c.bold_count + c.emoji_count) / len;
}

/** Zero-centred weights, lower value → higher weight (length and style penalties). */
export function lowIsBetterWeights(values: number[]): number[] {
  const max = Math.max(...values);
  const min = Math.min(...values);
  if (max === min) return values.map(() => 0);
  const raw = values.map((v) => 1 - (v - min) / (max - min));
  const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
  return raw.map((w) => w - mean);
}

/** Bonus and penalty settings of the aggregator. */
export interface AggregateOptions {
  aggregatorMethod: string;
  defaultScore: number;
  reasoningBonus: number;
  answerBonus: number;
  topPercentile: number;
  reasoningLengthPenalty: number;
  answerLengthPenalty: number;
  stylePenalty: number;
}

function lengthBonuses(scores: number[], responses: unknown[], o: AggregateOptions): number[] {
  const bonuses = scores.map(() => 0);
  if (responses.length < 2) return bonuses;
  const rl: number[] = [];
  const al: number[] = [];
  for (const r of responses) {
    const [reasoning, answer] = extractFromResponse(r);
    rl.push([...pyStrip(reasoning)].length);
    al.push([...pyStrip(answer)].length);
  }
  const sorted = [...scores].sort((a, b) => b - a);
  const threshold = sorted[Math.max(0, Math.trunc(scores.length * o.topPercentile) - 1)]!;
  const shortestBonus = (lengths: number[], bonus: number) => {
    if (bonus <= 0) return;
    let best = -1;
    lengths.forEach((l, i) => {
      if (l > 0 && (best < 0 || l < lengths[best]!)) best = i;
    });
    if (best >= 0 && scores[best]! >= threshold) {
      scores[best]! += bonus;
      bonuses[best]! += bonus;
    }
  };
  shortestBonus(rl, o.reasoningBonus);
  shortestBonus(al, o.answerBonus);
  if (o.reasoningLengthPenalty > 0 || o.answerLengthPenalty > 0) {
    const rw = lowIsBetterWeights(rl);
    const aw = lowIsBetterWeights(al);
    for (let i = 0; i < responses.length; i++) {
      const adj = rw[i]! * o.reasoningLengthPenalty + aw[i]! * o.answerLengthPenalty;
      if (adj !== 0) {
        scores[i]! += adj;
        bonuses[i]! += adj;
      }
    }
  }
  return bonuses;
}

/** The group's result: rewards, metrics, scores before adjustments, and the adjustments. */
export interface Aggregate {
  rewards: number[];
  metrics: Record<string, number>;
  baseScores: number[];
  bonuses: number[];
}

/** Pairwise results → one reward per response (upstream aggregate_scores, simple_tiebreaker). */
export function aggregateScores(results: Triple[], meta: PairMeta[], responses: unknown[], o: AggregateOptions): Aggregate {
  if (!(AGGREGATOR_METHODS as readonly string[]).includes(o.aggregatorMethod)) throw new Error(`Unsupported aggregator_method: '${o.aggregatorMethod}'. Supported: ['simple_tiebreaker']`);
  const n = responses.length;
  const acc = new Array<number>(n).fill(0);
  const counts = new Array<number>(n).fill(0);
  const individual: number[] = [];
  let ties = 0;
  results.forEach(([s1, s2, ranking], k) => {
    const [i, j] = meta[k]!;
    individual.push(s1, s2);
    if (s1 === s2) {
      ties++;
      const adj = RANKING_MIDPOINT - ranking;
      s1 += adj;
      s2 -= adj;
    }
    acc[i]! += s1;
    acc[j]! += s2;
    counts[i]!++;
    counts[j]!++;
  });
  const scores = acc.map((a, i) => (counts[i]! > 0 ? a / counts[i]! : o.defaultScore));
  const baseScores = [...scores];
  let bonuses = scores.map(() => 0);
  if (o.reasoningBonus > 0 || o.answerBonus > 0 || o.reasoningLengthPenalty > 0 || o.answerLengthPenalty > 0) {
    bonuses = lengthBonuses(scores, responses, o).map((b, i) => bonuses[i]! + b);
  }
  if (o.stylePenalty > 0 && n >= 2) {
    const w = lowIsBetterWeights(responses.map((r) => styleDensity(extractFromResponse(r)[1])));
    for (let i = 0; i < n; i++) {
      const adj = w[i]! * o.stylePenalty;
      if (adj !== 0) {
        scores[i]! += adj;
        bonuses[i]! += adj;
      }
    }
  }
  const metrics: Record<string, number> = {};
  if (individual.length > 0) {
    const mean = individual.reduce((a, b) => a + b, 0) / individual.length;
    metrics.mean_individual_score = mean;
    metrics.std_individual_score = Math.sqrt(individual.reduce((a, b) => a + (b - mean) ** 2, 0) / individual.length);
  }
  if (results.length > 0) metrics.tiebreak_usage_rate = ties / results.length;
  return { rewards: scores, metrics, baseScores, bonuses };
}

/** Responses input → `[{role, content}]` as upstream flattens it (list content keeps only output_text parts). */
export function conversationHistory(input: unknown): { role: string; content: string }[] {
  const items = Array.isArray(input) ? (input as Obj[]) : [];
  const text = (v: unknown) => (v === null ? "None" : typeof v === "string" ? v : typeof v === "boolean" ? (v ? "True" : "False") : String(v));
  return items.map((m) => {
    const o = (m && typeof m === "object" ? m : {}) as Obj;
    let content: unknown = "content" in o ? o.content : "";
    if (Array.isArray(content)) content = (content as Obj[]).filter((p) => p && typeof p === "object" && p.type === "output_text").map((p) => String(p.text ?? "")).join("");
    return { role: text("role" in o ? o.role : "user"), content: text(content) };
  });
}
