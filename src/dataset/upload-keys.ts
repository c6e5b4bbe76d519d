/**
 * Reading the top-level keys of the dataset transfer commands (upload, download, rm, migrate,
 * render) from the merged config, with errors that name the key, where it was set (D12) and the
 * flag that sets it.
 */
import { ConfigError, type SourceLocation } from "../errors.ts";
import { resolveAt } from "../config/interpolate.ts";
import type { ResolvedConfig } from "../config/types.ts";

/** Typed access to the top-level keys of one resolved config. */
export interface Keys {
  /** The resolved value, or undefined when the key is absent or null. */
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

/** Build the key reader of a resolved config. */
export function keysOf(resolved: ResolvedConfig): Keys {
  const dict = resolved.dict;
  const where = (key: string) => resolved.locate?.([key]);
  const get = (key: string): unknown => {
    if (!Object.hasOwn(dict, key)) return undefined;
    const v = resolveAt(dict, [key]);
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
