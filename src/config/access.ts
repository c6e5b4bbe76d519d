/**
 * The one way values leave a merged config. The dict keeps `${…}` unresolved (D3: a child resolves
 * `oc.env` in its own environment), so every read here interpolates; no consumer outside config/
 * sees an interpolation or calls the resolver. Errors name the key and, when known, its file position.
 */
import { ConfigError, type SourceLocation } from "../errors.ts";
import { GLOBAL_KEY_SCHEMAS, type GlobalKey, type GlobalKeys } from "./global-schema.ts";
import { resolveAt } from "./interpolate.ts";
import { isPlainMap } from "./merge.ts";
import type { ConfigDict, ResolvedConfig, ServerInstance } from "./types.ts";

/** Typed, fully interpolated access to one merged config. */
export interface ConfigAccess {
  /** The merged dict (interpolations unresolved): only for handing on whole (children, the head server). */
  readonly dict: ConfigDict;
  /** The interpolated value at a key path (a deep copy); undefined when the path is absent. */
  at(path: readonly string[]): unknown;
  /** A top-level key's interpolated value (null stays null); undefined when absent. */
  read(key: string): unknown;
  /** A server instance's leaf map, fully interpolated. */
  leaf(s: Pick<ServerInstance, "name" | "serverType" | "implementation">): Record<string, unknown>;
  /** The documented global keys that are set, typed (their types were checked when the config resolved). */
  globals(): GlobalKeys;
  /** The interpolated value, or undefined when the key is absent or null. */
  get(key: string): unknown;
  /** True when the key is present at all (even null or false). */
  has(key: string): boolean;
  /** A string value (numbers are stringified: `+version=1` stays usable); undefined when unset or empty. */
  str(key: string): string | undefined;
  /** A required string; `hint` says how to set it. */
  need(key: string, hint: string): string;
  /** A boolean (`true`/`false`, also the strings); `fallback` when unset. */
  bool(key: string, fallback: boolean): boolean;
  /** One of `allowed`; `fallback` when unset. */
  choice<T extends string>(key: string, allowed: readonly T[], fallback: T | undefined): T | undefined;
  /** Where the key's value came from, when it came from a file. */
  where(key: string): SourceLocation | undefined;
}

/** Build the accessor of a merged config (`locate` adds `file:line:col` to errors, D12). */
export function configAccess(config: Pick<ResolvedConfig, "dict" | "locate">): ConfigAccess {
  const dict = config.dict;
  const where = (key: string) => config.locate?.([key]);
  const at = (path: readonly string[]): unknown => {
    try {
      return resolveAt(dict, [...path]);
    } catch (err) {
      // The resolver knows the key, not its file: add the position the way the pipeline does.
      if (err instanceof ConfigError && !err.location && err.key && config.locate) {
        const location = config.locate(err.key.replace(/\[(\d+)\]/g, ".$1").split("."));
        if (location) throw new ConfigError(err.message, { key: err.key, location, hint: err.hint, code: err.code, cause: err });
      }
      throw err;
    }
  };
  const read = (key: string): unknown => (Object.hasOwn(dict, key) ? at([key]) : undefined);
  const get = (key: string): unknown => {
    const v = read(key);
    return v === null ? undefined : v;
  };
  const fail = (key: string, message: string, hint?: string): never => {
    throw new ConfigError(message, { key, location: where(key), hint });
  };
  const str = (key: string): string | undefined => {
    const v = get(key);
    if (v === undefined || v === "") return undefined;
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    return fail(key, `${key} must be a string, got ${JSON.stringify(v)}`);
  };
  return {
    dict,
    at,
    read,
    leaf(s) {
      const path = [s.name, s.serverType, s.implementation];
      const v = at(path);
      if (!isPlainMap(v)) return fail(path.join("."), `${path.join(".")} is not a map`);
      return v;
    },
    globals() {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(GLOBAL_KEY_SCHEMAS) as GlobalKey[]) if (Object.hasOwn(dict, key)) out[key] = at([key]);
      return out as GlobalKeys;
    },
    get,
    has: (key) => Object.hasOwn(dict, key),
    str,
    need(key, hint) {
      const v = str(key);
      return v ?? fail(key, `${key} is required`, hint);
    },
    bool(key, fallback) {
      const v = get(key);
      if (v === undefined) return fallback;
      if (v === true || v === "true" || v === "True") return true;
      if (v === false || v === "false" || v === "False") return false;
      return fail(key, `${key} must be true or false, got ${JSON.stringify(v)}`);
    },
    choice(key, allowed, fallback) {
      const v = str(key);
      if (v === undefined) return fallback;
      if ((allowed as readonly string[]).includes(v)) return v as (typeof allowed)[number];
      return fail(key, `${key} must be one of ${allowed.join(", ")}, got '${v}'`);
    },
    where,
  };
}
