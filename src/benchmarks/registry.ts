/**
 * Built-in benchmark preparers by name (the folder under `benchmarks/`), registered lazily like
 * components: index.ts adds one line per benchmark, and a module loads only when used.
 */
import type { BenchmarkPreparer } from "./types.ts";

const table = new Map<string, () => Promise<BenchmarkPreparer>>();

/** Register a built-in preparer under `name`. */
export function registerBenchmark(name: string, load: () => Promise<BenchmarkPreparer>): void {
  table.set(name, load);
}

/** True when `name` has a built-in preparer. */
export function hasPreparer(name: string): boolean {
  return table.has(name);
}

/** Load the preparer registered as `name`, or undefined. */
export async function loadPreparer(name: string): Promise<BenchmarkPreparer | undefined> {
  const load = table.get(name);
  return load ? load() : undefined;
}

/** Every registered name, sorted. */
export function preparerNames(): string[] {
  return [...table.keys()].sort();
}

/**
 * The preparer a `prepare_script` path names: `benchmarks/<name>/prepare.py` (nested names
 * allowed), the upstream key kept unchanged in shipped configs; a variant script beside it,
 * `benchmarks/<name>/prepare_<variant>.py` (hle's prepare_vision.py), is registered as
 * `<name>/prepare_<variant>`.
 */
export function preparerNameOfScript(script: string): string | undefined {
  const m = /(?:^|\/)benchmarks\/(.+)\/(prepare(?:_[A-Za-z0-9_]+)?)\.py$/.exec(script.replace(/\\/g, "/"));
  if (!m) return undefined;
  const key = m[2] === "prepare" ? m[1]! : `${m[1]}/${m[2]}`;
  return table.has(key) ? key : undefined;
}
