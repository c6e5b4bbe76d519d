/**
 * The per-harness rules for particular tools (codex, agent006, opencode, stirrup): which arguments
 * must be equal, which are compared by difflib similarity against a threshold, which only need to be
 * non-empty. A tool with no rule passes once its name and argument keys agree.
 */
import { PyFloat } from "../../../util/py-json-typed.ts";
import { pyEqual } from "../../../util/py-equal.ts";
import { sequenceRatio } from "../../../util/py-sequence-matcher.ts";
import { pyStrip } from "../../../util/py-str.ts";
import { byCodePoint, pyTypedDumps } from "../../../util/py-typed-str.ts";
import { result, STEP, type StepCategory, type StepResult } from "./categories.ts";

type Obj = Record<string, unknown>;

/** `d.get(key)`: null when missing. */
export const getArg = (d: Obj, key: string): unknown => (Object.hasOwn(d, key) ? d[key] : null);
const plain = (v: unknown): unknown => (v instanceof PyFloat ? v.value : Array.isArray(v) ? v.map(plain) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v);
/** Python `a != b` on typed JSON values. */
const differ = (a: unknown, b: unknown) => !pyEqual(plain(a), plain(b));
const isStr = (v: unknown): v is string => typeof v === "string";
const normalizeCommand = (s: string) => pyStrip(s.replaceAll("\r\n", "\n").replaceAll("\r", "\n"));
const normalizeWeb = (s: string) => pyStrip(s.toLowerCase());
const isStrList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const normalizePaths = (p: string[]) => p.map((s) => pyStrip(s)).sort(byCodePoint);

function nonEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (isStr(v)) return pyStrip(v) !== "";
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object" && !(v instanceof PyFloat)) return Object.keys(v).length > 0;
  return true;
}

/** Python truthiness of a str-or-other value followed by isinstance(str): a non-empty string. */
const filledStr = (v: unknown): v is string => isStr(v) && v !== "";

function similar(a: string, b: string, threshold: number, below: StepCategory): StepResult {
  const score = sequenceRatio(a, b);
  return score < threshold ? result(false, below, score) : result(true, STEP.EXPECTED_TOOL_CALL, score);
}

function sameKeys(e: Obj, a: Obj, keys: string[]): StepResult {
  for (const k of keys) if (differ(getArg(e, k), getArg(a, k))) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  return result(true, STEP.EXPECTED_TOOL_CALL);
}

function commandSimilarity(e: Obj, a: Obj, key: string, t: number, missing: StepCategory, below: StepCategory): StepResult {
  const ac = getArg(a, key), ec = getArg(e, key);
  if (!isStr(ac) || !isStr(ec)) return result(false, missing);
  return similar(normalizeCommand(ec), normalizeCommand(ac), t, below);
}

function executePython(e: Obj, a: Obj, t: number): StepResult {
  const ac = getArg(a, "code"), ec = getArg(e, "code");
  if (!isStr(ac) || !pyStrip(ac) || !isStr(ec) || !pyStrip(ec)) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  return similar(ec, ac, t, STEP.EXECUTE_PYTHON_CODE_SIMILARITY_BELOW_THRESHOLD);
}

function returnResult(e: Obj, a: Obj, t: number): StepResult {
  return similar(pyTypedDumps(getArg(e, "result"), { sortKeys: true }), pyTypedDumps(getArg(a, "result"), { sortKeys: true }), t, STEP.RETURN_RESULT_SIMILARITY_BELOW_THRESHOLD);
}

function todowrite(e: Obj, a: Obj): StepResult {
  const et = getArg(e, "todos"), at = getArg(a, "todos");
  if (Array.isArray(et) && et.length === 0) return Array.isArray(at) && at.length === 0 ? result(true, STEP.EXPECTED_TOOL_CALL) : result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  if (!Array.isArray(et) || !Array.isArray(at)) return result(false, STEP.TODOWRITE_EMPTY_TODOS);
  if (et.length !== at.length) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
  for (let i = 0; i < et.length; i++) {
    const x = et[i], y = at[i];
    if (!isObj(x) || !isObj(y)) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
    if (differ(getArg(x, "status"), getArg(y, "status")) || differ(getArg(x, "priority"), getArg(y, "priority"))) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  }
  return result(true, STEP.EXPECTED_TOOL_CALL);
}

function edit(e: Obj, a: Obj): StepResult {
  if (differ(getArg(e, "filePath"), getArg(a, "filePath"))) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  // A no-op edit (old == new) is never the expected step.
  if (!differ(getArg(a, "oldString"), getArg(a, "newString"))) return result(false, STEP.ARGUMENT_VALUE_MISMATCH);
  return sameKeys(e, a, ["replaceAll"]);
}

function webSearch(e: Obj, a: Obj, t: number): StepResult {
  const aq = getArg(a, "query"), eq = getArg(e, "query");
  if (!filledStr(aq) || !filledStr(eq)) return result(false, STEP.WEB_SEARCH_MISSING_QUERY);
  return similar(normalizeWeb(eq), normalizeWeb(aq), t, STEP.WEB_SEARCH_QUERY_SIMILARITY_BELOW_THRESHOLD);
}

function fetchWebPage(e: Obj, a: Obj): StepResult {
  const au = getArg(a, "url"), eu = getArg(e, "url");
  if (!filledStr(au) || !filledStr(eu)) return result(false, STEP.FETCH_WEB_PAGE_MISSING_URL);
  return normalizeWeb(eu) !== normalizeWeb(au) ? result(false, STEP.FETCH_WEB_PAGE_URLS_DO_NOT_MATCH) : result(true, STEP.EXPECTED_TOOL_CALL);
}

function finish(e: Obj, a: Obj, t: number): StepResult {
  const ar = getArg(a, "reason"), er = getArg(e, "reason");
  if (!filledStr(ar) || !filledStr(er)) return result(false, STEP.FINISH_MISSING_REASON);
  const ap = getArg(a, "paths"), ep = getArg(e, "paths");
  if (!isStrList(ap) || ap.length === 0 || !isStrList(ep) || ep.length === 0) return result(false, STEP.FINISH_MISSING_PATHS);
  const np = normalizePaths(ap), ne = normalizePaths(ep);
  if (np.length !== ne.length || np.some((p, i) => p !== ne[i])) return result(false, STEP.FINISH_PATHS_DO_NOT_MATCH);
  // Upstream compares actual against expected here (the other rules compare expected against actual).
  return similar(normalizeWeb(ar), normalizeWeb(er), t, STEP.FINISH_REASON_SIMILARITY_BELOW_THRESHOLD);
}

type Rule = (e: Obj, a: Obj, threshold: number) => StepResult;

const RULES: Record<string, Record<string, Rule>> = {
  codex: {
    exec_command: (e, a, t) => commandSimilarity(e, a, "cmd", t, STEP.EXEC_COMMAND_MISSING_CMD, STEP.EXEC_COMMAND_CMD_SIMILARITY_BELOW_THRESHOLD),
    update_plan: (_e, a) => (nonEmpty(getArg(a, "plan")) ? result(true, STEP.EXPECTED_TOOL_CALL) : result(false, STEP.UPDATE_PLAN_EMPTY_PLAN)),
  },
  agent006: { execute_python: executePython, return_result: returnResult },
  opencode: {
    bash: (e, a, t) => commandSimilarity(e, a, "command", t, STEP.BASH_MISSING_COMMAND, STEP.BASH_COMMAND_SIMILARITY_BELOW_THRESHOLD),
    todowrite: (e, a) => todowrite(e, a),
    read: (e, a) => sameKeys(e, a, ["filePath"]),
    write: (e, a) => sameKeys(e, a, ["filePath"]),
    edit: (e, a) => edit(e, a),
    glob: (e, a) => sameKeys(e, a, ["pattern", "path"]),
    grep: (e, a) => sameKeys(e, a, ["pattern", "path", "include"]),
    webfetch: (e, a) => sameKeys(e, a, ["url", "format"]),
    skill: (e, a) => sameKeys(e, a, ["name"]),
    task: (e, a) => sameKeys(e, a, ["subagent_type"]),
  },
  stirrup: {
    code_exec: (e, a, t) => commandSimilarity(e, a, "cmd", t, STEP.EXEC_COMMAND_MISSING_CMD, STEP.EXEC_COMMAND_CMD_SIMILARITY_BELOW_THRESHOLD),
    web_search: webSearch,
    fetch_web_page: (e, a) => fetchWebPage(e, a),
    finish,
  },
};

/** The harness's rule for this tool, applied; null when the harness has none for it. */
export function harnessRule(harness: string, tool: string, expected: Obj, actual: Obj, threshold: number): StepResult | null {
  const rule = Object.hasOwn(RULES, harness) && Object.hasOwn(RULES[harness]!, tool) ? RULES[harness]![tool]! : undefined;
  return rule ? rule(expected, actual, threshold) : null;
}
