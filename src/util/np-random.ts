/**
 * numpy's legacy global generator as upstream's Python uses it: `np.random.seed(int)` is an MT19937
 * seeded by init_genrand (PyRandom.fromGenrand), and `randint(n)` / `choice(n, replace=True)` /
 * pandas `sample(replace=True)` draw by masked rejection on 32-bit outputs. Plus `np.percentile`'s
 * default linear interpolation.
 */
import type { PyRandom } from "./py-random.ts";

/** numpy's legacy `RandomState.randint(n)`: masked rejection on 32-bit draws. */
export function npRandint(np: PyRandom, n: number): number {
  const rng = n - 1;
  if (rng === 0) return 0;
  let mask = rng;
  for (let s = 1; s < 32; s <<= 1) mask |= mask >>> s;
  mask >>>= 0;
  let v: number;
  do v = (np.nextUint32() & mask) >>> 0;
  while (v > rng);
  return v;
}

/** `np.percentile(values, q)` with the default "linear" method (values need not be sorted; NaN when empty). */
export function npPercentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const pos = (q / 100) * (s.length - 1); // numpy scales q first: the same rounding
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, s.length - 1);
  const t = pos - lo;
  // numpy's _lerp: a + (b − a)·t, evaluated from the upper end when t ≥ 0.5 (same rounding as numpy).
  const a = s[lo]!;
  const b = s[hi]!;
  const d = b - a;
  return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}
