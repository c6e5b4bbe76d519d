/**
 * StructEval non-renderable scoring (upstream resources_servers/structeval, after StructEval's
 * render_utils / eval_utils): the code is pulled from `<|BEGIN_CODE|>…<|END_CODE|>` or a fence (after
 * Python's `unicode_escape` decode of the text), parsed in its format (render score 1 when it parses
 * to something truthy), then every expected dot-path (`a.b[0].*.c`, `` `odd.key` ``, `@attr`,
 * `csv::header`) is looked up; reward = round(0.2·render + 0.8·paths found, 2).
 */
import { pyInt } from "../../util/py-int.ts";
import { pyRegex } from "../../util/py-regex.ts";
import { pyRound } from "../../util/py-round.ts";
import { pyStrip } from "../../util/py-str.ts";
import { ParseError, parseCsv, parseJson, parseToml, parseXml, parseYaml, pyTruthy } from "./parse.ts";

type Obj = Record<string, unknown>;

const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\n": "" };

/**
 * `codecs.decode(text, "unicode_escape")`: the text's UTF-8 bytes read as Latin-1 with backslash
 * escapes resolved; null where Python raises (a bad `\x`/`\u`/`\U` escape, a trailing backslash,
 * or `\N{…}`, whose name table we do not carry).
 */
export function unicodeEscapeDecode(text: string): string | null {
  const bytes = new TextEncoder().encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0x5c) {
      out += String.fromCharCode(b);
      continue;
    }
    if (i + 1 >= bytes.length) return null;
    const c = String.fromCharCode(bytes[++i]!);
    if (Object.hasOwn(SIMPLE_ESCAPES, c)) out += SIMPLE_ESCAPES[c];
    else if (c >= "0" && c <= "7") {
      let digits = c;
      while (digits.length < 3 && i + 1 < bytes.length && bytes[i + 1]! >= 0x30 && bytes[i + 1]! <= 0x37) digits += String.fromCharCode(bytes[++i]!);
      out += String.fromCodePoint(Number.parseInt(digits, 8));
    } else if (c === "x" || c === "u" || c === "U") {
      const len = c === "x" ? 2 : c === "u" ? 4 : 8;
      const hex = String.fromCharCode(...bytes.slice(i + 1, i + 1 + len));
      if (hex.length < len || !/^[0-9a-fA-F]+$/.test(hex)) return null;
      const cp = Number.parseInt(hex, 16);
      if (cp > 0x10ffff) return null;
      out += String.fromCodePoint(cp);
      i += len;
    } else if (c === "N") return null;
    else out += `\\${c}`;
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[^\p{L}\p{N}_]/gu, (c) => `\\${c}`);
const BEGIN_END = "<\\|BEGIN_CODE\\|\\>[ \\t]*\\n?(?P<payload1>.*?)(?:<\\|END_CODE\\|\\>|$)";
const fencePattern = (type: string) => `\`\`\`(?:${escapeRe(type)}|[^\\n]*)[ \\t]*\\n(?P<payload2>.*?)(?:\`\`\`|$)`;

/** StructEval's extract_code_and_save: begin/end markers or a fence (a fence found anywhere wins), else the whole text. */
export function extractCode(raw: string, outputType: string): string {
  let text = raw.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("<think>\n\n</think>\n\n", "");
  text = unicodeEscapeDecode(text) ?? text;
  const flags = { dotAll: true, ignoreCase: true };
  const fence = pyRegex(fencePattern(outputType), flags);
  const m = pyRegex(`(?:${BEGIN_END})|(?:${fencePattern(outputType)})`, flags).search(text);
  // Upstream reads `payload1 or payload2`; an empty payload1 with no payload2 would crash there (None.strip()): here it is "".
  let code = m ? pyStrip(m.groups?.payload1 || m.groups?.payload2 || "") : pyStrip(text);
  const f = fence.search(text);
  if (f) code = pyStrip(f.groups?.payload2 ?? "");
  return code;
}

/** The parsed structure, render score and error of one code string. */
export function parseContent(code: string, outputType: string): { parsed: unknown; render: number; errorType: string | null; errorMessage: string | null } {
  const fail = (errorType: string, errorMessage: string) => ({ parsed: null, render: 0, errorType, errorMessage });
  let result: unknown;
  try {
    if (outputType === "json") result = parseJson(code);
    else if (outputType === "yaml") result = parseYaml(code);
    else if (outputType === "toml") result = parseToml(code, "TomlDecodeError");
    else if (outputType === "xml") result = parseXml(code);
    else if (outputType === "csv") {
      const { fieldnames, rows } = parseCsv(code);
      result = { csv_headers: fieldnames, csv_rows: rows };
    } else return fail("unsupported_type", `Unsupported output type: ${outputType}`);
  } catch (e) {
    if (e instanceof ParseError) return fail("parse_error", `${e.pyName}: ${[...e.message].slice(0, 200).join("")}`);
    throw e;
  }
  if (!pyTruthy(result)) return fail("parse_error", "Parsed result is empty");
  return { parsed: result, render: 1, errorType: null, errorMessage: null };
}

/** Share of keywords found (case-insensitively) in the generation. */
export function rawOutputEval(generation: string, keywords: string[]): number {
  if (keywords.length === 0) return 0;
  const g = generation.toLowerCase();
  return keywords.filter((k) => g.includes(k.toLowerCase())).length / keywords.length;
}

/** Dot-path tokens: backticks quote dots, `[i]` is its own token, `csv::…` is one token. */
export function tokenizePath(path: string): string[] {
  if (path.startsWith("csv::")) return [path];
  const tokens: string[] = [];
  let buf = "";
  let inBt = false;
  for (let i = 0; i < path.length; ) {
    const ch = path[i]!;
    if (ch === "`") {
      inBt = !inBt;
      i++;
    } else if (ch === "." && !inBt) {
      if (buf) tokens.push(buf);
      buf = "";
      i++;
    } else if (ch === "[" && !inBt) {
      if (buf) tokens.push(buf);
      buf = "";
      const j = path.indexOf("]", i);
      if (j < 0) throw new Error(`Unclosed '[' in path: ${path}`);
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      buf += ch;
      i++;
    }
  }
  if (buf) tokens.push(buf);
  return tokens;
}

const isDict = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);

/** Whether a dot-path exists in the parsed structure. */
export function pathExists(data: unknown, path: string): boolean {
  const walk = (node: unknown, toks: string[]): boolean => {
    if (toks.length === 0) return true;
    const [tok, ...rest] = toks as [string, ...string[]];
    if (isDict(node) && "csv_headers" in node && tok.startsWith("csv::")) {
      const headers = (node.csv_headers as string[] | null) ?? [];
      return headers.includes(tok.slice(5)) && rest.length === 0;
    }
    if (tok === "*") return Array.isArray(node) && node.some((item) => walk(item, rest));
    if (tok.startsWith("[") && tok.endsWith("]")) {
      let idx: number;
      try {
        idx = pyInt(tok.slice(1, -1));
      } catch {
        return false;
      }
      return Array.isArray(node) && idx >= 0 && idx < node.length && walk(node[idx], rest);
    }
    if (isDict(node)) {
      if (Object.hasOwn(node, tok)) return walk(node[tok], rest);
      if (tok.startsWith("@") && Object.hasOwn(node, tok.slice(1))) return walk(node[tok.slice(1)], rest);
    }
    return false;
  };
  return walk(data, tokenizePath(path));
}

/** The score fields of one assistant text. */
export function scoreStructeval(text: string, outputTypeRaw: string, metric: string[]): Obj {
  if (!text || !pyStrip(text)) return { reward: 0, render_score: 0, key_validation_score: 0, raw_output_score: 0, error_type: "empty_response", error_message: "No assistant response text" };
  const outputType = outputTypeRaw.toLowerCase();
  const code = extractCode(text, outputType);
  const raw = rawOutputEval(text, metric);
  const { parsed, render, errorType, errorMessage } = parseContent(code, outputType);
  let key = 0;
  if (render === 1 && metric.length) key = metric.filter((p) => pathExists(parsed, p)).length / metric.length;
  return { reward: pyRound(0.2 * render + 0.8 * key, 2), render_score: render, key_validation_score: key, raw_output_score: raw, error_type: errorType, error_message: errorMessage };
}

/** Upstream compute_metrics: means of reward by output / input type and task name, and of render / key scores. */
export function structevalMetrics(tasks: Obj[][]): Obj {
  const groups = new Map<string, number[]>();
  const add = (k: string, v: number) => groups.set(k, [...(groups.get(k) ?? []), v]);
  const render: number[] = [];
  const key: number[] = [];
  const byOutput: [string, number][] = [];
  const byInput: [string, number][] = [];
  const byTask: [string, number][] = [];
  const renderBy: [string, number][] = [];
  const keyBy: [string, number][] = [];
  const get = (r: Obj, k: string, d: unknown) => (k in r ? r[k] : d);
  for (const r of tasks.flat()) {
    const reward = Number(get(r, "reward", 0));
    const ot = String(get(r, "output_type", "unknown"));
    const rs = Number(get(r, "render_score", 0));
    const ks = Number(get(r, "key_validation_score", 0));
    byOutput.push([ot, reward]);
    byInput.push([String(get(r, "input_type", "unknown")), reward]);
    byTask.push([String(get(r, "task_name", "unknown")), reward]);
    render.push(rs);
    key.push(ks);
    renderBy.push([ot, rs]);
    keyBy.push([ot, ks]);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const out: Obj = {};
  if (render.length) out["mean/render_score"] = mean(render);
  if (key.length) out["mean/key_validation_score"] = mean(key);
  for (const [prefix, pairs] of [["mean/reward_output_", byOutput], ["mean/reward_input_", byInput], ["mean/reward_", byTask], ["mean/render_score_", renderBy], ["mean/key_validation_score_", keyBy]] as const) {
    groups.clear();
    for (const [k, v] of pairs) add(k, v);
    for (const [k, v] of groups) out[`${prefix}${k}`] = mean(v);
  }
  return out;
}
