/** Helpers shared by the checker families (relations, random keyword defaults, Python indexing). */
import { eqStr, num, type Rng } from "./args.ts";
import { PyError } from "./py-str.ts";
import { RELATIONS } from "./types.ts";

/** A few words from upstream's WORD_LIST, for the (randomly drawn upstream) keyword defaults. */
const WORDS = ["western", "sentence", "signal", "dump", "spot", "opposite", "bottom", "potato", "administration", "working", "welcome", "morning", "good", "agency", "primary", "wish", "responsibility", "press", "problem", "president", "steal", "brush", "read", "type", "beat", "trainer", "growth", "lock", "bone", "case", "equal", "comfortable", "region", "replacement", "performance", "mate", "walk", "medicine", "film", "thing", "rock", "tap", "total", "competition", "ease", "south", "establishment", "gather", "parking", "world", "plenty", "breath", "claim", "alcohol", "trade", "dear", "highlight", "street", "matter", "decision", "mess", "agreement", "studio", "coach", "assist", "brain", "wing", "style", "private", "top", "brown", "leg", "buy", "procedure", "method", "speed", "high", "company", "valuable", "pie", "analyst", "session", "pattern", "district", "pleasure", "dinner", "swimming", "joke", "order", "plate", "department", "motor", "cell", "spend", "cabinet", "difference", "power", "examination", "engine", "horse", "dimension", "pay", "toe", "curve", "literature"];

/** `instructions_util.generate_keywords(1)[0]`. */
export function randomKeyword(rng: Rng): string {
  return rng.choice(WORDS);
}

/** `random.sample(WORD_LIST, k)`. */
export function randomKeywords(rng: Rng, k: number): string[] {
  const out = new Set<string>();
  while (out.size < k) out.add(rng.choice(WORDS));
  return [...out];
}

/** The `relation` kwarg: None → random; anything but the two supported strings → ValueError. */
export function relation(v: unknown, rng: Rng, name = "relation"): (typeof RELATIONS)[number] {
  if (v === undefined) return rng.choice(RELATIONS);
  for (const r of RELATIONS) if (eqStr(v, r)) return r;
  throw new PyError(`The supported relation for comparison must be in ('less than', 'at least'), but ${String(JSON.stringify(v))} is given (${name}).`);
}

/** A threshold kwarg: None or negative → `random.randint(lo, hi)`. */
export function threshold(v: unknown, rng: Rng, lo: number, hi: number, name: string): number {
  if (v === undefined) return rng.randint(lo, hi);
  const n = num(v, name);
  return n < 0 ? rng.randint(lo, hi) : n;
}

/** Compare a count against a threshold under a relation. */
export function compare(count: number, rel: (typeof RELATIONS)[number], limit: number): boolean {
  return rel === "less than" ? count < limit : count >= limit;
}

/** Python `xs[i]` with negative indexing; IndexError outside. */
export function pyIndex<T>(xs: readonly T[], i: number, name = "index"): T {
  const j = i < 0 ? xs.length + i : i;
  if (!Number.isInteger(j) || j < 0 || j >= xs.length) throw new PyError(`${name}: list index out of range`);
  return xs[j]!;
}

/** Python `s[a:b]` on code points (negative bounds count from the end; out of range clamps). */
export function pySlice(s: string, a: number, b: number): string {
  const cps = [...s];
  const n = cps.length;
  const norm = (x: number) => (x < 0 ? Math.max(0, n + x) : Math.min(n, x));
  const lo = norm(a);
  const hi = norm(b);
  return hi > lo ? cps.slice(lo, hi).join("") : "";
}
