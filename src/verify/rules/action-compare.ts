/**
 * single_step_tool_use_with_argument_comparison: compare the model's first action (a message, one
 * function call, or a batch) with the expected action. Arguments are compared structurally with
 * Python's types (an int is not a float), floats within a threshold, multi-word strings by word-count
 * overlap; a batch is matched as an unordered multiset (maximum bipartite matching), with optional
 * parallel-call scoring (binary_strict / fractional / f1, subset / superset gates).
 */
import { pySplit, pyStrip } from "../../util/py-str.ts";
import { jsonLoadsTyped, pyNum, pyType } from "../../util/py-json-typed.ts";
import { outputItems } from "../tool-calls.ts";

type Obj = Record<string, unknown>;

/** Upstream's StepRewardCategory values (the wire strings). */
export const CATEGORY = {
  NO_ACTION_FOUND: "No tool call or chat message was found in the response",
  NO_EXPECTED_TOOL_CALL: "No tool call was found when one was expected",
  EXPECTED_CHAT_MESSAGE_FOUND: "A chat message was found as expected",
  NO_EXPECTED_CHAT_MESSAGE: "A tool call was executed when a chat message was expected",
  UNEXPECTED_TOOL: "The tool in a tool call is not the expected tool",
  ARGUMENTS_DECODE_ERROR: "An error occurred when decoding the arguments string in a tool call as a JSON object",
  ARGUMENT_VALUE_TYPE_DIFFERENT: "The type of an argument value in a tool call is different than the expected type",
  ARGUMENT_OBJECT_KEYS_DIFFERENT: "The keys in an object in an argument value in a tool call are different than the keys in the expected object",
  ARGUMENT_LIST_LENGTH_DIFFERENT: "A list in an argument value in a tool call has a different length than the expected list",
  ARGUMENT_VALUE_DIFFERENT: "An argument value in a tool call is different than the expected value",
  EXPECTED_TOOL_CALL: "A tool call that matches the expected tool call was found",
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: "The number of tool calls in a batch is different than expected",
  EXPECTED_TOOL_CALL_BATCH: "A tool-call batch that matches the expected tool calls was found",
} as const;
/** One category string. */
export type Category = (typeof CATEGORY)[keyof typeof CATEGORY];

/** One function call (arguments as the JSON string the model produced). */
export interface CallAction { type: "function_call"; name: string; arguments: string }
/** An action: a message, one call, or a batch of calls. */
export type Action = { type: "message"; content: string } | CallAction | { type: "function_call_batch"; calls: CallAction[] };

/** The comparator's config (upstream ToolCallComparatorConfig). */
export interface ComparatorConfig {
  word_count_similarity_threshold: number;
  floating_point_comparison_threshold: number;
  parallel_tool_call_rewarding: boolean;
  allow_subset: boolean;
  allow_superset: boolean;
  parallel_tool_call_reward_mode: "binary_strict" | "fractional" | "f1";
}

/** The model's action: its function calls (one, or a batch) beat text; else the first assistant output_text; else null. */
export function extractAction(response: unknown): Action | null {
  const calls: CallAction[] = [];
  let text: string | null = null;
  for (const o of outputItems(response)) {
    if (o.type === "function_call") calls.push({ type: "function_call", name: String(o.name), arguments: String(o.arguments) });
    else if (o.type === "message" && o.role === "assistant" && text === null && Array.isArray(o.content)) {
      const part = (o.content as Obj[]).find((c) => c?.type === "output_text");
      if (part) text = String(part.text);
    }
  }
  if (calls.length === 1) return calls[0]!;
  if (calls.length > 0) return { type: "function_call_batch", calls };
  return text !== null ? { type: "message", content: text } : null;
}

function wordCounts(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of pySplit(pyStrip(s).toLowerCase())) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

function compareArgs(expected: unknown, actual: unknown, cfg: ComparatorConfig): [boolean, Category | null] {
  const te = pyType(expected), ta = pyType(actual);
  // isinstance(actual, type(expected)): a bool is an int, nothing else crosses types.
  if (!(te === ta || (te === "int" && ta === "bool"))) return [false, CATEGORY.ARGUMENT_VALUE_TYPE_DIFFERENT];
  if (te === "dict") {
    const e = expected as Obj, a = actual as Obj;
    const ke = Object.keys(e), ka = Object.keys(a);
    if (ke.length !== ka.length || !ke.every((k) => Object.hasOwn(a, k))) return [false, CATEGORY.ARGUMENT_OBJECT_KEYS_DIFFERENT];
    for (const k of ke) {
      const r = compareArgs(e[k], a[k], cfg);
      if (!r[0]) return r;
    }
    return [true, null];
  }
  if (te === "list") {
    const e = expected as unknown[], a = actual as unknown[];
    if (e.length !== a.length) return [false, CATEGORY.ARGUMENT_LIST_LENGTH_DIFFERENT];
    for (let i = 0; i < e.length; i++) {
      const r = compareArgs(e[i], a[i], cfg);
      if (!r[0]) return r;
    }
    return [true, null];
  }
  if (te === "float") return Math.abs(pyNum(actual) - pyNum(expected)) < cfg.floating_point_comparison_threshold ? [true, null] : [false, CATEGORY.ARGUMENT_VALUE_DIFFERENT];
  if (te === "str") {
    const ce = wordCounts(expected as string), ca = wordCounts(actual as string);
    const et = total(ce), at = total(ca);
    if (et < 2 || at < 2) return expected === actual ? [true, null] : [false, CATEGORY.ARGUMENT_VALUE_DIFFERENT];
    let inter = 0;
    for (const [w, n] of ce) inter += Math.min(n, ca.get(w) ?? 0);
    return inter / (et + at) < cfg.word_count_similarity_threshold ? [false, CATEGORY.ARGUMENT_VALUE_DIFFERENT] : [true, null];
  }
  if (te === "NoneType" || pyNum(expected) === pyNum(actual)) return [true, null];
  return [false, CATEGORY.ARGUMENT_VALUE_DIFFERENT];
}

/** Compare one call with the expected one. */
export function compareCall(expected: CallAction, actual: CallAction, cfg: ComparatorConfig): { reward: number; category: Category } {
  if (expected.name !== actual.name) return { reward: 0.0, category: CATEGORY.UNEXPECTED_TOOL };
  const exp = jsonLoadsTyped(expected.arguments);
  let act: unknown;
  try {
    act = jsonLoadsTyped(actual.arguments);
  } catch {
    return { reward: 0.0, category: CATEGORY.ARGUMENTS_DECODE_ERROR };
  }
  const [ok, cat] = compareArgs(exp, act, cfg);
  return ok ? { reward: 1.0, category: CATEGORY.EXPECTED_TOOL_CALL } : { reward: 0.0, category: cat! };
}

/** Kuhn's maximum bipartite matching: actual index → expected index, most constrained expected calls first. */
export function maximumMatching(candidates: number[][]): Map<number, number> {
  const matching = new Map<number, number>();
  const augment = (e: number, seen: Set<number>): boolean => {
    for (const a of candidates[e]!) {
      if (seen.has(a)) continue;
      seen.add(a);
      if (!matching.has(a) || augment(matching.get(a)!, seen)) {
        matching.set(a, e);
        return true;
      }
    }
    return false;
  };
  // A stable sort by candidate count, as Python's sorted().
  const order = candidates.map((_, i) => i).sort((x, y) => candidates[x]!.length - candidates[y]!.length || x - y);
  for (const e of order) augment(e, new Set());
  return matching;
}

function score(matched: number, ne: number, na: number, cfg: ComparatorConfig): number {
  if (!cfg.parallel_tool_call_rewarding) return matched === ne ? 1.0 : 0.0;
  if (cfg.parallel_tool_call_reward_mode === "f1") return ne + na ? (2 * matched) / (ne + na) : 0.0;
  const required = cfg.allow_subset ? Math.min(ne, na) : ne;
  if (cfg.parallel_tool_call_reward_mode === "fractional") return required ? matched / required : 0.0;
  return matched === required ? 1.0 : 0.0;
}

function admissible(ne: number, na: number, cfg: ComparatorConfig): boolean {
  if (na === ne || !cfg.parallel_tool_call_rewarding) return true;
  return na < ne ? cfg.allow_subset : cfg.allow_superset;
}

/** Compare the calls of two actions as an unordered multiset. */
export function compareCalls(expected: CallAction[], actual: CallAction[], cfg: ComparatorConfig): { reward: number; category: Category } {
  const ne = expected.length, na = actual.length;
  if (ne === 1 && na === 1) return compareCall(expected[0]!, actual[0]!, cfg);
  if (!admissible(ne, na, cfg)) return { reward: 0.0, category: CATEGORY.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT };
  const candidates: number[][] = [];
  const failures: Category[] = [];
  for (const e of expected) {
    const hits: number[] = [];
    let failure: Category = CATEGORY.UNEXPECTED_TOOL;
    actual.forEach((a, i) => {
      const r = compareCall(e, a, cfg);
      if (r.reward === 1.0) hits.push(i);
      else if (failure === CATEGORY.UNEXPECTED_TOOL) failure = r.category;
    });
    candidates.push(hits);
    failures.push(failure);
  }
  const matching = maximumMatching(candidates);
  const reward = score(matching.size, ne, na, cfg);
  if (reward === 1.0) return { reward, category: ne === 1 ? CATEGORY.EXPECTED_TOOL_CALL : CATEGORY.EXPECTED_TOOL_CALL_BATCH };
  const matchedExpected = new Set(matching.values());
  const unmatched = expected.map((_, i) => i).filter((i) => !matchedExpected.has(i));
  if (unmatched.length === 0 || matchedExpected.size === na) return { reward, category: CATEGORY.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT };
  return { reward, category: failures[unmatched[0]!]! };
}

const callsOf = (a: Action): CallAction[] => (a.type === "function_call_batch" ? a.calls : a.type === "function_call" ? [a] : []);

/** Grade the model's action against the expected one. */
export function compareAction(expected: Action, actual: Action | null, cfg: ComparatorConfig): { reward: number; category: Category } {
  if (actual === null) return { reward: 0.0, category: CATEGORY.NO_ACTION_FOUND };
  if (expected.type === "message") return actual.type === "message" ? { reward: 1.0, category: CATEGORY.EXPECTED_CHAT_MESSAGE_FOUND } : { reward: 0.0, category: CATEGORY.NO_EXPECTED_CHAT_MESSAGE };
  if (actual.type === "message") return { reward: 0.0, category: CATEGORY.NO_EXPECTED_TOOL_CALL };
  return compareCalls(callsOf(expected), callsOf(actual), cfg);
}
