/**
 * The five structured formats upstream's structeval / structured_outputs servers parse, each as its
 * Python library reads it: JSON (json.loads), YAML (PyYAML safe_load: YAML 1.1 with PyYAML's own
 * booleans, duplicate keys allowed, merge keys), TOML (Bun's parser stands in for toml / tomllib),
 * XML (xmltodict.parse, ./xml.ts) and CSV (csv.DictReader, ./csv.ts). A failure is a ParseError
 * whose `pyName` is the Python exception class upstream would have named in its error_message.
 */
import { parse as parseYamlText, type Tags } from "yaml";
import { CsvError, dictReader } from "./csv.ts";
import { ExpatError, xmlToDict } from "./xml.ts";

/** The formats. */
export const FORMATS = ["json", "yaml", "xml", "toml", "csv"] as const;
/** One of FORMATS. */
export type Format = (typeof FORMATS)[number];

/** A parse failure: `pyName` is the Python exception class name, `message` the reason. */
export class ParseError extends Error {
  override name = "ParseError";
  constructor(
    readonly pyName: string,
    message: string,
  ) {
    super(message);
  }
}

// PyYAML's bool resolver (YAML 1.1 minus y/n): yes/no, true/false, on/off in three casings.
const PY_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const pyYamlTags = (tags: Tags): Tags => [
  ...tags.filter((t) => (t as { tag?: string }).tag !== "tag:yaml.org,2002:bool"),
  { identify: (v: unknown) => typeof v === "boolean", default: true, tag: "tag:yaml.org,2002:bool", test: PY_BOOL, resolve: (s: string) => /^(?:yes|true|on)$/i.test(s) },
];

/** `yaml.safe_load`. */
export function parseYaml(text: string): unknown {
  try {
    return parseYamlText(text, { version: "1.1", customTags: pyYamlTags, uniqueKeys: false, merge: true, maxAliasCount: 10_000 }) ?? null;
  } catch (e) {
    throw new ParseError("YAMLError", (e as Error).message);
  }
}

/** `json.loads`. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ParseError("JSONDecodeError", (e as Error).message);
  }
}

/** TOML (`toml.loads` / `tomllib.loads`; the Python class name differs between the two). */
export function parseToml(text: string, pyName = "TOMLDecodeError"): unknown {
  try {
    return Bun.TOML.parse(text);
  } catch (e) {
    throw new ParseError(pyName, (e as Error).message.replace(/^TOML Parse error: /, ""));
  }
}

/** `xmltodict.parse`. */
export function parseXml(text: string): unknown {
  try {
    return xmlToDict(text);
  } catch (e) {
    if (e instanceof ExpatError) throw new ParseError("ExpatError", e.message);
    throw e;
  }
}

/** `csv.DictReader(io.StringIO(text))`: field names and row dicts. */
export function parseCsv(text: string): ReturnType<typeof dictReader> {
  try {
    return dictReader(text);
  } catch (e) {
    if (e instanceof CsvError) throw new ParseError("Error", e.message);
    throw e;
  }
}

/** Python truthiness of a parsed value (`if not result:`). */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Date) return true;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}
