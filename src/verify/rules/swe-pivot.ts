/**
 * swe_pivot (PivotRL on SWE agent trajectories): the model's first function call is compared with
 * the trajectory's expected next call in layers — tool (exact name or shared category), target
 * (editor sub-command, file path suffix, view range, shell verb and paths), argument similarity
 * (difflib's ratio on the first 2000 code points) and, in continuous mode, a penalty on large edits.
 * Arguments are Python values: a JSON string argument may decode to a list or a string, and the
 * checks then behave as Python's `in` / `.get` do (a TypeError/AttributeError is upstream's
 * `unknown_error`).
 */
import { jsonLoadsTyped, PyFloat, pyType } from "../../util/py-json-typed.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { sequenceRatio } from "../../util/py-sequence-matcher.ts";
import { pySplit, pyStrip } from "../../util/py-str.ts";
import { pyTypedDumps, pyTypedStr } from "../../util/py-typed-str.ts";
import { outputItems } from "../tool-calls.ts";

type Obj = Record<string, unknown>;

/** A Python exception upstream's verify catches as `unknown_error` (TypeError, AttributeError, KeyError, OverflowError). */
export class PyRuntimeError extends Error {
  override name = "PyRuntimeError";
}

const CATEGORIES: [string, string[]][] = [
  ["edit", ["str_replace_editor", "text_editor", "file_editor", "code_editor", "edit_file", "modify_file", "update_file", "file_edit", "edit", "modify", "apply_patch", "patch_file", "apply_diff", "apply_changes", "write", "write_file", "save_file", "create_file"]],
  ["bash", ["execute_bash", "run_bash", "bash_exec", "shell_run", "shell", "bash", "terminal", "shell_command", "shell_cmd", "run_shell_cmd", "exec_command", "exec_cmd"]],
  ["search", ["grep", "search_text", "find_pattern", "text_search", "glob", "find_files", "file_glob", "match_files", "grep_files", "search_files", "find_in_files", "code_search", "list_dir", "ls", "show_dir", "ls_dir", "list_directory"]],
  ["read", ["read", "read_file", "view_file", "cat_file", "view", "file_view", "inspect", "show_file", "read_file_content"]],
  ["finish", ["finish", "submit"]],
  ["think", ["think"]],
  ["planning", ["task_tracker", "todo_tracker", "plan_tracker", "todo_read", "todo_write", "update_plan", "list_tasks", "update_tasks", "read_todos", "write_todos", "edit_plan", "modify_plan"]],
];

// Each name is known lower-cased and as its CamelCase spelling lower-cased (the name without underscores).
const CATEGORY_OF = new Map<string, string>();
for (const [cat, names] of CATEGORIES) for (const n of names) for (const k of [n.toLowerCase(), n.replaceAll("_", "").toLowerCase()]) CATEGORY_OF.set(k, cat);

/** The tool's category (edit, bash, search, read, finish, think, planning) or "unknown". */
export function toolCategory(name: string): string {
  return CATEGORY_OF.get(name.toLowerCase()) ?? "unknown";
}

/** Tool arguments as upstream reads them: a dict as is, a string JSON-decoded (any JSON value; {} when invalid), anything else {}. */
export function parseArguments(raw: unknown): unknown {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw) && !(raw instanceof PyFloat)) return raw;
  if (typeof raw === "string") {
    try {
      return jsonLoadsTyped(raw);
    } catch {
      return {};
    }
  }
  return {};
}

const isDict = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);

/** Python `key in args` for whatever the arguments decoded to. */
function has(args: unknown, key: string): boolean {
  if (isDict(args)) return Object.hasOwn(args, key);
  if (typeof args === "string") return args.includes(key);
  if (Array.isArray(args)) return args.some((x) => x === key);
  throw new PyRuntimeError(`TypeError: argument of type '${pyType(args)}' is not iterable`);
}

/** Python `args.get(key, dflt)`: only a dict has it. */
function get(args: unknown, key: string, dflt: unknown): unknown {
  if (!isDict(args)) throw new PyRuntimeError(`AttributeError: '${pyType(args)}' object has no attribute 'get'`);
  return Object.hasOwn(args, key) ? args[key] : dflt;
}

/** Python `args[key]` after a successful `key in args` (a list or str cannot be indexed by a str). */
function item(args: unknown, key: string): unknown {
  if (!isDict(args)) throw new PyRuntimeError(`TypeError: ${pyType(args)} indices must be integers or slices, not str`);
  return args[key];
}

/** The target file of the arguments (path, file, file_path, filename, file_name), stripped; "" when none. */
export function extractFilePath(args: unknown): string {
  for (const k of ["path", "file", "file_path", "filename", "file_name"]) if (has(args, k)) return pyStrip(pyTypedStr(item(args, k)));
  return "";
}

/** The last n components of a path, slashes at either end ignored. */
export function pathSuffix(path: string, n = 3): string {
  return pyStrip(path, "/").split("/").slice(-n).join("/");
}

/** The shell command (command or cmd), stripped; "" when none. */
export function extractCommand(args: unknown): string {
  for (const k of ["command", "cmd"]) if (has(args, k)) return pyStrip(pyTypedStr(item(args, k)));
  return "";
}

/** The edit's content: old_str + "\n" + new_str, else patch, diff, content or file_text. */
export function extractEditContent(args: unknown): string {
  if (has(args, "new_str")) return `${pyTypedStr(get(args, "old_str", ""))}\n${pyTypedStr(item(args, "new_str"))}`;
  if (has(args, "patch")) return pyTypedStr(item(args, "patch"));
  if (has(args, "diff")) return pyTypedStr(item(args, "diff"));
  if (has(args, "content") || has(args, "file_text")) return pyTypedStr(get(args, "content", get(args, "file_text", "")));
  return "";
}

/** The command's first word without its directory ("/usr/bin/python3 x" → "python3"). */
export function commandVerb(cmd: string): string {
  const first = pySplit(cmd)[0];
  return first === undefined ? "" : first.slice(first.lastIndexOf("/") + 1);
}

// An absolute path, ./ or ../ relative path, or dir/file, after the start, whitespace, =, a quote or (.
const PATH_IN_CMD = pyRegex(String.raw`(?:^|[\s='"(])((?:/[\w._-]+)+|\.\.?/[\w._/-]+|[\w._-]+/[\w._/-]+)`);

/** The file and directory paths a shell command names (longer than 2 characters, not options). */
export function pathsInCommand(cmd: string): string[] {
  if (!cmd) return [];
  return (PATH_IN_CMD.findall(cmd) as string[]).filter((p) => !p.startsWith("--") && [...p].length > 2);
}

/** The editor sub-command (view, str_replace, create, …); "" when none. */
function editorCommand(args: unknown): string {
  return pyTypedStr(get(args, "command", ""));
}

function intOf(x: unknown): number | null {
  const v = x instanceof PyFloat ? x.value : x;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") {
    // int(inf) is an OverflowError, which upstream does not catch here.
    if (!Number.isFinite(v)) throw new PyRuntimeError(Number.isNaN(v) ? "ValueError: cannot convert float NaN to integer" : "OverflowError: cannot convert float infinity to integer");
    return Math.trunc(v);
  }
  if (typeof v === "string") {
    const s = pyStrip(v).replace(/(?<=\d)_(?=\d)/g, "");
    return /^[+-]?\d+$/.test(s) ? Number.parseInt(s, 10) : null;
  }
  return null;
}

/** A view_range (a 2-list, or its JSON text) as [start, end]; null when absent or malformed. */
export function parseViewRange(raw: unknown): [number, number] | null {
  let v = raw;
  if (typeof raw === "string") {
    try {
      v = jsonLoadsTyped(raw);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(v) || v.length !== 2) return null;
  const a = intOf(v[0]);
  if (a === null) return null;
  const b = intOf(v[1]);
  return b === null ? null : [a, b];
}

/** Level 0: same tool name (case-insensitive) or the same known category. */
export function toolNameMatch(rName: string, rCat: string, eName: string, eCat: string): boolean {
  return rName.toLowerCase() === eName.toLowerCase() || (rCat === eCat && rCat !== "unknown");
}

const BASH_TARGET_SIMILARITY_FLOOR = 0.3;
const MAX_SIMILARITY_CHARS = 2000;

/** difflib's ratio on the first 2000 code points of each side. */
export function cappedSimilarity(a: string, b: string): number {
  return sequenceRatio([...a].slice(0, MAX_SIMILARITY_CHARS).join(""), [...b].slice(0, MAX_SIMILARITY_CHARS).join(""));
}

function suffixSet(paths: string[]): Set<string> {
  const s = new Set(paths.map((p) => pathSuffix(p.replace(/\/+$/, ""))));
  s.delete("");
  return s;
}

/** Level 1: does the call act on the same target (file, view range, shell verb and paths)? */
export function targetMatch(rCat: string, rArgs: unknown, eCat: string, eArgs: unknown): boolean {
  if (rCat === "edit" && eCat === "edit") {
    const rc = editorCommand(rArgs), ec = editorCommand(eArgs);
    if (rc && ec && rc !== ec) return false;
    const rf = extractFilePath(rArgs), ef = extractFilePath(eArgs);
    if (rf && ef && pathSuffix(rf, 2) !== pathSuffix(ef, 2)) return false;
    if (rc === "view" && ec === "view") {
      const r = parseViewRange(get(rArgs, "view_range", null)), e = parseViewRange(get(eArgs, "view_range", null));
      // No rollout range means the whole file, which covers any expected range.
      if (r && e) {
        const overlap = Math.max(0, Math.min(r[1], e[1]) - Math.max(r[0], e[0]));
        if (overlap / Math.max(1, e[1] - e[0]) < 0.8) return false;
      }
    }
    return true;
  }
  if (rCat === "bash" && eCat === "bash") {
    const rc = extractCommand(rArgs), ec = extractCommand(eArgs);
    const rv = commandVerb(rc), ev = commandVerb(ec);
    if (rv && ev && rv !== ev) return false;
    const rp = pathsInCommand(rc), ep = pathsInCommand(ec);
    if (rp.length > 0 && ep.length > 0) {
      const rs = suffixSet(rp), es = suffixSet(ep);
      if (rs.size > 0 && es.size > 0 && ![...rs].some((s) => es.has(s))) return false;
    }
    // A floor on the whole command's similarity, so a shared verb alone (any `cd`) is not a match.
    if (rc && ec && cappedSimilarity(rc, ec) < BASH_TARGET_SIMILARITY_FLOOR) return false;
    return true;
  }
  if ((rCat === "search" || rCat === "read") && (eCat === "search" || eCat === "read")) {
    const rf = extractFilePath(rArgs), ef = extractFilePath(eArgs);
    return rf && ef ? pathSuffix(rf) === pathSuffix(ef) : true;
  }
  return true;
}

/** Level 2: argument similarity in [0, 1] (edits: min of old_str and new_str ratios, else content; bash: command; others 1). */
export function argumentSimilarity(rCat: string, rArgs: unknown, eCat: string, eArgs: unknown): number {
  if (rCat === "edit" && eCat === "edit") {
    const s = (args: unknown, k: string) => pyTypedStr(get(args, k, ""));
    const rOld = s(rArgs, "old_str"), eOld = s(eArgs, "old_str"), rNew = s(rArgs, "new_str"), eNew = s(eArgs, "new_str");
    if ((rOld || rNew) && (eOld || eNew)) {
      const sim = (a: string, b: string) => (a && b ? cappedSimilarity(a, b) : a === b ? 1.0 : 0.0);
      return Math.min(sim(rOld, eOld), sim(rNew, eNew));
    }
    const rc = extractEditContent(rArgs), ec = extractEditContent(eArgs);
    if (rc && ec) return cappedSimilarity(rc, ec);
    return Boolean(rc) !== Boolean(ec) ? 0.0 : 1.0;
  }
  if (rCat === "bash" && eCat === "bash") {
    const rc = extractCommand(rArgs), ec = extractCommand(eArgs);
    return rc && ec ? cappedSimilarity(rc, ec) : 1.0;
  }
  return 1.0;
}

/** Level 4: alpha × min(len(edit content) / 500, 1) for edits, else 0. */
export function diffSizePenalty(rCat: string, rArgs: unknown, alpha: number): number {
  if (rCat !== "edit") return 0.0;
  const content = extractEditContent(rArgs);
  if (!content) return 0.0;
  return alpha * Math.min([...content].length / 500, 1.0);
}

/** The server's config (upstream SwePivotResourcesServerConfig). */
export interface SwePivotConfig {
  reward_mode: string;
  enable_target_match: boolean;
  enable_argument_similarity: boolean;
  similarity_threshold: number;
  similarity_full_credit: number;
  enable_diff_size_shaping: boolean;
  diff_size_alpha: number;
}

/** Upstream's defaults. */
export const SWE_PIVOT_DEFAULTS: SwePivotConfig = {
  reward_mode: "binary",
  enable_target_match: true,
  enable_argument_similarity: true,
  similarity_threshold: 0.4,
  similarity_full_credit: 0.8,
  enable_diff_size_shaping: true,
  diff_size_alpha: 0.1,
};

/** The row fields the verifier reads. */
export interface SwePivotRow {
  expected_answer?: string | null;
  expected_action?: Obj | null;
  metadata?: Obj | null;
}

interface Call { name: unknown; arguments: unknown }

const isCallDict = (v: unknown): v is Obj => isDict(v) && v.type === "function_call";

/** `ea["name"]` of a function_call dict: a missing name is a KeyError. */
function callOf(ea: Obj): Call {
  if (!Object.hasOwn(ea, "name")) throw new PyRuntimeError("KeyError: 'name'");
  return { name: ea.name, arguments: Object.hasOwn(ea, "arguments") ? ea.arguments : "" };
}

/** The expected call: row.expected_action, else expected_answer's JSON, else metadata.expected_action (function_call dicts only). */
export function expectedCall(row: SwePivotRow): Call | null {
  const ea = row.expected_action;
  if (ea && Object.keys(ea).length > 0 && isCallDict(ea)) return callOf(ea);
  if (row.expected_answer) {
    try {
      const parsed = jsonLoadsTyped(row.expected_answer);
      if (isCallDict(parsed)) return callOf(parsed);
    } catch {
      // Not JSON, or a function_call without a name: upstream falls through to metadata here.
    }
  }
  if (row.metadata && Object.keys(row.metadata).length > 0) {
    const m = row.metadata.expected_action;
    if (isCallDict(m)) return callOf(m);
  }
  return null;
}

function nameOf(name: unknown): string {
  if (typeof name !== "string") throw new PyRuntimeError(`AttributeError: '${pyType(name)}' object has no attribute 'lower'`);
  return name;
}

/** The verify fields (besides the echoed uuid and metadata). */
export interface SwePivotResult {
  reward: number;
  expected_answer: string;
  model_output: string;
  tool_name_match: boolean;
  target_match: boolean | null;
  similarity_score: number | null;
  diff_size_penalty: number | null;
  failure_reason: "none" | "expected_action_invalid" | "model_output_invalid" | "tool_name_mismatch" | "target_mismatch" | "similarity_below_threshold" | "unknown_error";
}

/** Grade one rollout's first function call against the expected one. */
export function gradeSwePivot(response: unknown, row: SwePivotRow, cfg: SwePivotConfig): SwePivotResult {
  const out: SwePivotResult = { reward: 0.0, expected_answer: row.expected_answer || "", model_output: "", tool_name_match: false, target_match: null, similarity_score: null, diff_size_penalty: null, failure_reason: "none" };
  const stop = (reason: SwePivotResult["failure_reason"], reward = 0.0) => ({ ...out, reward, failure_reason: reason });
  try {
    const expected = expectedCall(row);
    if (!expected) return stop("expected_action_invalid");
    const eName = nameOf(expected.name);
    const eArgs = parseArguments(expected.arguments);
    const eCat = toolCategory(eName);
    const call = outputItems(response).find((o) => o?.type === "function_call");
    if (!call) {
      out.model_output = "(no function_call in response)";
      return stop("model_output_invalid");
    }
    const rName = nameOf(call.name ?? "");
    const rArgs = parseArguments(call.arguments ?? "");
    const rCat = toolCategory(rName);
    out.model_output = `${rName}(${pyTypedDumps(rArgs).slice(0, 500)})`;

    out.tool_name_match = toolNameMatch(rName, rCat, eName, eCat);
    if (!out.tool_name_match) return stop("tool_name_mismatch");
    let reward = 1.0;
    if (cfg.enable_target_match) {
      out.target_match = targetMatch(rCat, rArgs, eCat, eArgs);
      if (!out.target_match) return stop("target_mismatch");
    }
    if (cfg.enable_argument_similarity) {
      const sim = argumentSimilarity(rCat, rArgs, eCat, eArgs);
      out.similarity_score = sim;
      const full = cfg.similarity_full_credit, t = cfg.similarity_threshold;
      if (sim >= full) reward = 1.0;
      else if (cfg.reward_mode !== "binary" && sim >= t) reward = 0.5 + (0.5 * (sim - t)) / (full - t);
      else return stop("similarity_below_threshold");
    }
    if (cfg.enable_diff_size_shaping && cfg.reward_mode === "continuous") {
      out.diff_size_penalty = diffSizePenalty(rCat, rArgs, cfg.diff_size_alpha);
      reward *= 1.0 - out.diff_size_penalty;
    }
    return { ...out, reward };
  } catch (e) {
    if (!(e instanceof PyRuntimeError)) throw e;
    return stop("unknown_error");
  }
}
