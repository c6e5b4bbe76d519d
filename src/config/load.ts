/**
 * Read one YAML config file into plain data plus its source locations. Parsing follows the
 * YAML 1.1 rules PyYAML (and so OmegaConf) uses — `yes`/`no` booleans, `<<` merge keys — except
 * timestamps, which stay strings as they do in OmegaConf.
 */
import { readFileSync } from "node:fs";
import type { ScalarTag, Node, ParseOptions, DocumentOptions, SchemaOptions } from "yaml";
import { ConfigError } from "../errors.ts";
import type { ConfigDict } from "./types.ts";
import { yamlLib } from "./yaml-lib.ts";
import { lazyLocTree, locTree, type LocNode } from "./yaml-locations.ts";

/** A parsed config layer: the data and where each value came from. */
export interface Layer {
  dict: ConfigDict;
  locs: LocNode;
}

// PyYAML's YAML 1.1 booleans: unlike the yaml package's 1.1 schema, a bare `y`/`n` stays a string.
const pyBool = (value: boolean, test: RegExp): ScalarTag => ({
  identify: (v) => v === value,
  default: true,
  tag: "tag:yaml.org,2002:bool",
  test,
  resolve: () => new (yamlLib().Scalar)(value),
  stringify: () => String(value),
});
const PY_BOOLS = [pyBool(true, /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/), pyBool(false, /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/)];
const DROPPED_TAGS = new Set(["tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool"]);

const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  merge: true,
  uniqueKeys: true,
  customTags: (tags) => [...PY_BOOLS, ...tags.filter((t) => typeof t === "string" || !DROPPED_TAGS.has(t.tag))],
};

// Text where Bun's native YAML 1.2 reader and PyYAML's 1.1 rules can disagree, as a whole plain
// scalar (key or value): 1.1 booleans, leading-zero/underscore/binary/sexagesimal numbers; and
// tags or several documents anywhere. Such files take the slow, exact path; a false positive
// only costs speed, so words like "on" inside longer strings are left alone.
const BOOL_11 = "(?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF)";
const NUM_11 = String.raw`[-+]?(?:0[0-9_]+|0[bo][0-7_]+|\d[\d_]*_[\d_]*|\d[\d_]*(?::[0-5]?\d)+)(?:\.[\d_]*)?`;
const SCALAR_START = String.raw`(?:^[ \t]*(?:-[ \t]+)*|[:\-\[{,][ \t]*)`;
const SCALAR_END = String.raw`[ \t]*(?:$|[,\]}:]|[ \t]#)`;
const RISKY = new RegExp(
  [`${SCALAR_START}(?:${BOOL_11}|${NUM_11})${SCALAR_END}`, String.raw`(?:^|[\s\[{,])![^\s]`, String.raw`^(?:---|\.\.\.)`].join("|"),
  "m",
);

// One block-mapping key line: indentation, `- ` list markers, then a plain or quoted key and `:`.
// Lines of any other shape (comments, list scalars, continuation text) never match.
const KEY_LINE = /^( *)((?:- +)*)(?!- )("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'#:{}[\],&*!|>%@`][^:#\n]*?):(?=\s|$)/gm;

/** True when a block mapping in `text` may repeat a key (heuristic; flow mappings are not scanned). */
function mayHaveDuplicateKeys(text: string): boolean {
  // The regex engine finds the key lines natively; JS only keeps the per-indent key sets.
  const stack: { indent: number; keys: Set<string> }[] = [];
  for (const m of text.matchAll(KEY_LINE)) {
    const indent = m[1]!.length + m[2]!.length;
    const newItem = m[2] !== "";
    const key = m[3]!.trim();
    while (stack.length > 0 && stack[stack.length - 1]!.indent > indent) stack.pop();
    const top = stack[stack.length - 1];
    if (top && top.indent === indent && !newItem) {
      if (top.keys.has(key)) return true;
      top.keys.add(key);
    } else {
      if (top && top.indent === indent) stack.pop();
      stack.push({ indent, keys: new Set([key]) });
    }
  }
  return false;
}

/** Fast path: Bun's native reader, when the text cannot read differently under PyYAML's rules. */
function fastParse(text: string, file: string): Layer | undefined {
  if (RISKY.test(text) || mayHaveDuplicateKeys(text)) return undefined;
  let value: unknown;
  try {
    value = Bun.YAML.parse(text);
  } catch {
    return undefined; // the exact parser reports the error with its position
  }
  if (value === null || value === undefined) return { dict: {}, locs: lazyLocTree({ file, text }) };
  if (typeof value !== "object" || Array.isArray(value)) return undefined;
  return { dict: value as ConfigDict, locs: lazyLocTree({ file, text }) };
}

/** Alias expansions one config file may make (the yaml library counts them against document size). */
const MAX_ALIAS_COUNT = 10000;

/** Parse YAML text of a config file; `file` is used in error messages and locations. */
export function parseConfigText(text: string, file: string): Layer {
  return fastParse(text, file) ?? exactParse(text, file);
}

/** The exact path: YAML 1.1 as PyYAML reads it, with positions for every node. */
export function exactParse(text: string, file: string): Layer {
  const { LineCounter, parseDocument } = yamlLib();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...PARSE_OPTIONS, lineCounter, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem) {
    const { line, col } = lineCounter.linePos(problem.pos[0]);
    const detail = problem.message.split("\n")[0]!.replace(/ at line \d+, column \d+.*$/, "");
    throw new ConfigError(`Malformed YAML in '${file}' at line ${line}, column ${col}: ${detail}`, {
      hint: "fix the YAML syntax at that position (indentation, quoting, a missing ':')",
    });
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // The yaml library refuses a "billion laughs" alias bomb with a plain Error: a config problem, not a gym bug.
    if (/alias/i.test((err as Error).message)) {
      throw new ConfigError(`'${file}' expands YAML aliases beyond the limit (${MAX_ALIAS_COUNT} alias expansions): ${(err as Error).message}`, {
        hint: "a config must not nest aliases of aliases (&a / *a) that multiply out; write the repeated values out, or use ${…} interpolation",
      });
    }
    throw err;
  }
  if (value === null || value === undefined) return { dict: {}, locs: { src: { file, lineCounter, doc }, children: new Map() } };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`Config file '${file}' must hold a YAML mapping at the top level, got ${Array.isArray(value) ? "a list" : typeof value}`, {
      location: { file, line: 1, col: 1 },
      hint: "write the config as `key: value` lines",
    });
  }
  return { dict: value as ConfigDict, locs: locTree(doc.contents as Node, { file, lineCounter, doc }) };
}

/** Read and parse a config file (the caller has checked that it exists). */
export function loadConfigFile(absPath: string): Layer {
  let text: string;
  try {
    text = readFileSync(absPath, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read config file '${absPath}': ${(err as Error).message}`, { hint: "check the path and its permissions" });
  }
  return parseConfigText(text, absPath);
}
