/**
 * Python-typed handling of instruction kwargs: upstream calls `build_description(**kwargs)`, so an
 * unknown key is a TypeError, `if not x` is Python truthiness, `x.strip()` on a non-string raises and
 * `x < 0` between a string and a number raises. Every raise becomes a PyError (instruction not followed).
 */
import { PyError, pyStrip } from "./py-str.ts";

/** Kwargs as they arrive in a row (JSON values). */
export type Kwargs = Record<string, unknown>;

/** Python's type name of a JSON value, for messages. */
export function pyType(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** Python truthiness. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

/** `v.strip()`: only strings have it. */
export function strip(v: unknown, name: string): string {
  if (typeof v !== "string") throw new PyError(`${name}: '${pyType(v)}' object has no attribute 'strip'`);
  return pyStrip(v);
}

/** `v.lower()`. */
export function lower(v: unknown, name: string): string {
  if (typeof v !== "string") throw new PyError(`${name}: '${pyType(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

/** A number usable in a Python comparison (bool is an int); anything else raises TypeError. */
export function num(v: unknown, name: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new PyError(`${name}: '<' not supported between instances of '${pyType(v)}' and 'int'`);
}

/** A value used as a list index or slice bound: int (or bool) only. */
export function int(v: unknown, name: string): number {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  throw new PyError(`${name}: indices must be integers, not ${pyType(v)}`);
}

/** A string where upstream hands the value to `re` or `in`. */
export function str(v: unknown, name: string): string {
  if (typeof v !== "string") throw new PyError(`${name}: expected string, got ${pyType(v)}`);
  return v;
}

/** Python `iter(v)` as a list: a string yields its characters, a dict its keys. */
export function iterList(v: unknown, name: string): unknown[] {
  if (typeof v === "string") return [...v];
  if (Array.isArray(v)) return v;
  if (v && typeof v === "object") return Object.keys(v);
  throw new PyError(`${name}: '${pyType(v)}' object is not iterable`);
}

/** Python `==` between a JSON value and a string. */
export function eqStr(v: unknown, s: string): boolean {
  return typeof v === "string" && v === s;
}

/** Deterministic stand-in for upstream's unseeded `random` when a kwarg is missing (seeded per build). */
export class Rng {
  private state: number;
  constructor(seed: string) {
    let h = 2166136261;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
    this.state = h >>> 0;
  }
  /** Uniform float in [0, 1) (mulberry32). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** `random.randint(a, b)` (inclusive). */
  randint(a: number, b: number): number {
    if (b < a) throw new PyError(`empty range for randrange() (${a}, ${b + 1})`);
    return a + Math.floor(this.next() * (b - a + 1));
  }
  /** `random.choice(xs)`. */
  choice<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new PyError("Cannot choose from an empty sequence");
    return xs[Math.floor(this.next() * xs.length)]!;
  }
}
