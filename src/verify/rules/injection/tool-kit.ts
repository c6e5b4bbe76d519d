/**
 * The pieces every indirect-prompt-injection domain tool is built from: a tool's Python signature
 * (so bad arguments fail with the TypeError text upstream's handlers raise) and the few Python
 * behaviours the handlers lean on (`str.lower` on non-strings, `key in dict`, `env[key]`).
 */
import { pyStr } from "../../../util/py-str-of.ts";

/** A domain environment (the row's `environment`, deep-copied per session). */
export type Env = Record<string, any>;
/** Tool arguments, after dropping nulls as upstream does. */
export type Args = Record<string, any>;

/** An exception a Python handler would raise: its type name and message. */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

/** One tool: its Python signature and its body. */
export interface ToolDef {
  name: string;
  /** Required keyword parameters, in signature order. */
  required: string[];
  /** Optional keyword parameters. */
  optional: string[];
  /** The signature ends in `**kwargs`: unknown arguments are accepted and ignored. */
  varKw: boolean;
  run(env: Env, a: Args): unknown;
}

/** Build a tool definition. */
export function tool(name: string, required: string[], optional: string[], varKw: boolean, run: (env: Env, a: Args) => unknown): ToolDef {
  return { name, required, optional, varKw, run };
}

function quoteList(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0]!;
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
}

/** Check arguments against the signature the way CPython binds keyword arguments (unexpected first, then missing). */
export function bindArgs(def: ToolDef, args: Args): void {
  const known = new Set([...def.required, ...def.optional]);
  for (const k of Object.keys(args)) {
    if (k === "env") throw new PyError("TypeError", `${def.name}() got multiple values for argument 'env'`);
    if (!known.has(k) && !def.varKw) throw new PyError("TypeError", `${def.name}() got an unexpected keyword argument '${k}'`);
  }
  const missing = def.required.filter((k) => !(k in args));
  if (missing.length > 0) {
    throw new PyError("TypeError", `${def.name}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${quoteList(missing)}`);
  }
}

/** Python's type name of a JSON value. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** `v.lower()`: an AttributeError for a non-string, as in the handlers. */
export function lower(v: unknown): string {
  if (typeof v !== "string") throw new PyError("AttributeError", `'${pyTypeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

/** `key in d` for a dict: lists and dicts are unhashable. */
export function has(d: unknown, key: unknown): boolean {
  if (Array.isArray(key) || (key !== null && typeof key === "object")) throw new PyError("TypeError", `unhashable type: '${pyTypeName(key)}'`);
  // Environment dicts come from JSON, so only a string key can be present.
  return typeof key === "string" && d !== null && typeof d === "object" && Object.hasOwn(d, key);
}

/** `env[key]`: a KeyError when the environment lacks the collection. */
export function must(env: Env, key: string): any {
  if (!Object.hasOwn(env, key)) throw new PyError("KeyError", `'${key}'`);
  return env[key];
}

/** `env.get(key, {})` / `env.get(key, [])`. */
export function got(env: Env, key: string, dflt: unknown): any {
  return Object.hasOwn(env, key) ? env[key] : dflt;
}

/** `env.setdefault(key, dflt)`. */
export function setDefault(env: Env, key: string, dflt: unknown): any {
  if (!Object.hasOwn(env, key)) env[key] = dflt;
  return env[key];
}

/** A dict's values (a list passes through), as `.values()` iterates. */
export function values(d: unknown): any[] {
  if (Array.isArray(d)) return d;
  return d !== null && typeof d === "object" ? Object.values(d) : [];
}

/** `rec.get(key, "")` as a string. */
export function field(rec: any, key: string): any {
  return rec !== null && typeof rec === "object" && Object.hasOwn(rec, key) ? rec[key] : "";
}

/** `existing + "\n" + note if existing else note`. */
export function appendNote(existing: unknown, note: unknown): unknown {
  return existing ? `${pyStr(existing)}\n${pyStr(note)}` : note;
}

/** A new record id: the prefix and six upper-case hex digits (`uuid4().hex[:6].upper()`). */
export function newId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 6).toUpperCase()}`;
}

/** Python `str()` for f-string interpolation. */
export const s = pyStr;

/** Python truthiness of a JSON value. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}
