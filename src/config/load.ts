/**
 * Read one YAML config file into plain data plus its source locations. Parsing follows the
 * YAML 1.1 rules PyYAML (and so OmegaConf) uses — `yes`/`no` booleans, `<<` merge keys — except
 * timestamps, which stay strings as they do in OmegaConf.
 */
import { readFileSync } from "node:fs";
import { LineCounter, parseDocument, Scalar, type ScalarTag, type Node, type ParseOptions, type DocumentOptions, type SchemaOptions } from "yaml";
import { ConfigError } from "../errors.ts";
import type { ConfigDict } from "./types.ts";
import { locTree, type LocNode } from "./yaml-locations.ts";

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
  resolve: () => new Scalar(value),
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

/** Parse YAML text of a config file; `file` is used in error messages and locations. */
export function parseConfigText(text: string, file: string): Layer {
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
  const value: unknown = doc.toJS({ maxAliasCount: 10000 });
  if (value === null || value === undefined) return { dict: {}, locs: { src: { file, lineCounter }, children: new Map() } };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`Config file '${file}' must hold a YAML mapping at the top level, got ${Array.isArray(value) ? "a list" : typeof value}`, {
      location: { file, line: 1, col: 1 },
      hint: "write the config as `key: value` lines",
    });
  }
  return { dict: value as ConfigDict, locs: locTree(doc.contents as Node, { file, lineCounter }) };
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
