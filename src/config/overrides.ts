/**
 * Command-line overrides (spec cli-config §4.4, D4): Hydra 1.3's override grammar, parsed
 * without Hydra, and applied to a plain config dict. `+k=v` adds, `++k=v` upserts, bare `k=v`
 * sets an existing key, `~k` / `~k=v` deletes.
 */
import { ConfigError } from "../errors.ts";
import type { ConfigDict } from "./types.ts";
import { parseOverrideValue, ValueSyntaxError } from "./_override-value.ts";
import { deepEqual, deleteAt, getAt, isMap, updateAt } from "./_override-tree.ts";
import { pyStr } from "../util/py-str-of.ts";

/** One parsed override token. */
export type OverrideOp = { kind: "add" | "upsert" | "set" | "delete"; path: string[]; value?: unknown; raw: string };

const GRAMMAR_URL = "See https://hydra.cc/docs/1.2/advanced/override_grammar/basic for details";
// KEY_SPECIAL of Hydra's key mode (letters, digits, `_`, `-`, `$`), plus list-index segments.
const KEY_SEGMENT = /^(?:[\p{L}_$][\p{L}\p{N}_$\-]*|0|[1-9][0-9]*)$/u;

function parseError(token: string, detail: string): ConfigError {
  return new ConfigError(`Error parsing override '${token}'\n${detail}\n${GRAMMAR_URL}`, { code: "E_OVERRIDE" });
}

function parseKey(token: string, key: string): string[] {
  if (key === "") throw parseError(token, "missing key before '='");
  if (key.includes("/") || key.includes("@")) {
    throw new ConfigError(`override '${token}' looks like a config group override ('${key}'); gym has no config groups`, {
      code: "E_OVERRIDE",
      hint: "set a config key with a dotted path instead, e.g. +a.b=value",
    });
  }
  const path = key.split(".");
  const single = path.length === 1;
  for (const seg of path) {
    // Hydra accepts a bare integer only inside a dotted path (`a.0`), never as the whole key.
    if (!KEY_SEGMENT.test(seg) || (single && /^[0-9]/.test(seg))) {
      throw parseError(token, `invalid key '${key}': keys are dotted names made of letters, digits, '_', '-' and '$'`);
    }
  }
  return path;
}

/** Parse one override token (Hydra 1.3 grammar); throws ConfigError quoting the token. */
export function parseOverride(token: string): OverrideOp {
  let rest = token;
  let kind: OverrideOp["kind"] = "set";
  if (rest.startsWith("++")) {
    kind = "upsert";
    rest = rest.slice(2);
  } else if (rest.startsWith("+")) {
    kind = "add";
    rest = rest.slice(1);
  } else if (rest.startsWith("~")) {
    kind = "delete";
    rest = rest.slice(1);
  }
  const eq = rest.indexOf("=");
  if (eq < 0) {
    if (kind === "delete") return { kind, path: parseKey(token, rest), raw: token };
    throw parseError(token, `missing '=': write ${token}=<value>`);
  }
  const path = parseKey(token, rest.slice(0, eq));
  const text = rest.slice(eq + 1);
  if (text.trim() === "") return { kind, path, value: "", raw: token };
  let value: unknown;
  try {
    value = parseOverrideValue(text);
  } catch (e) {
    if (!(e instanceof ValueSyntaxError)) throw e;
    if (e.sweep) {
      throw new ConfigError(
        `Ambiguous value for argument '${token}'\n` +
          "1. To use it as a list, use key=[value1,value2]\n" +
          "2. To use it as string, quote the value: key='value1,value2'\n" +
          "3. To sweep over it, add --multirun to your command line",
        { code: "E_OVERRIDE", hint: "gym does not sweep: use a list or a quoted string" },
      );
    }
    throw parseError(token, e.message);
  }
  return { kind, path, value, raw: token };
}

/** The text after `=` in the raw token, for messages that echo the user's value. */
function valueText(op: OverrideOp): string {
  const eq = op.raw.indexOf("=");
  return eq < 0 ? "" : op.raw.slice(eq + 1);
}

function isContainer(v: unknown): boolean {
  return Array.isArray(v) || isMap(v);
}

/** Apply one override to `dict` in place (D4 rules); throws ConfigError naming the key. */
export function applyOverride(dict: ConfigDict, op: OverrideOp): void {
  const key = op.path.join(".");
  const cur = getAt(dict, op.path);
  switch (op.kind) {
    case "add": {
      // Hydra reads a `???` value as absent here, so `+k=v` may fill a mandatory value.
      const present = cur.found && cur.value !== null && cur.value !== "???";
      if (present && !isContainer(op.value)) {
        throw new ConfigError(
          `Could not append to config. An item is already at '${key}'.\n` +
            `Either remove + prefix: '${op.raw.slice(1)}'\n` +
            `Or add a second + to add or override '${key}': '+${op.raw}'`,
          { key, code: "E_OVERRIDE" },
        );
      }
      return write(dict, op, key);
    }
    case "upsert":
      return write(dict, op, key);
    case "set":
      if (!cur.found) {
        throw new ConfigError(`key '${key}' is not in the config; use +${key}=${valueText(op)} to add it`, {
          key,
          code: "E_OVERRIDE",
          hint: `use ++${key}=${valueText(op)} to set it whether or not it exists`,
        });
      }
      return write(dict, op, key);
    case "delete": {
      if (!cur.found) throw new ConfigError(`Could not delete from config. '${key}' does not exist.`, { key, code: "E_OVERRIDE" });
      if (op.value !== undefined && op.value !== null && !deepEqual(op.value, cur.value)) {
        throw new ConfigError(`Could not delete from config. The value of '${key}' is ${pyStr(cur.value)} and not ${pyStr(op.value)}.`, {
          key,
          code: "E_OVERRIDE",
        });
      }
      deleteAt(dict, op.path);
      return;
    }
  }
}

function write(dict: ConfigDict, op: OverrideOp, key: string): void {
  try {
    updateAt(dict, op.path, op.value);
  } catch (e) {
    if (e instanceof RangeError) throw new ConfigError(`Could not apply override '${op.raw}': ${e.message} at '${key}'.`, { key, code: "E_OVERRIDE" });
    throw e;
  }
}
