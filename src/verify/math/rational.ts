/** Exact rationals over BigInt: the number tier of math verification (no float error on integers and fractions). */

/** A reduced fraction n/d with d > 0. */
export interface Rat {
  readonly n: bigint;
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Builds a reduced rational; null when the denominator is zero. */
export function rat(n: bigint, d = 1n): Rat | null {
  if (d === 0n) return null;
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** Parses a decimal literal ("12", "-0.25", "3.", ".5", "1e-3") exactly. */
export function ratFromDecimal(text: string): Rat | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const frac = m[3] ?? "";
  let n = BigInt((m[2] || "0") + frac);
  let d = 10n ** BigInt(frac.length);
  const e = m[4] ? Number(m[4]) : 0;
  if (Math.abs(e) > 400) return null;
  if (e > 0) n *= 10n ** BigInt(e);
  else if (e < 0) d *= 10n ** BigInt(-e);
  return rat(m[1] === "-" ? -n : n, d);
}

/** a + b. */
export const ratAdd = (a: Rat, b: Rat): Rat => rat(a.n * b.d + b.n * a.d, a.d * b.d)!;
/** a - b. */
export const ratSub = (a: Rat, b: Rat): Rat => rat(a.n * b.d - b.n * a.d, a.d * b.d)!;
/** a * b. */
export const ratMul = (a: Rat, b: Rat): Rat => rat(a.n * b.n, a.d * b.d)!;
/** a / b; null on division by zero. */
export const ratDiv = (a: Rat, b: Rat): Rat | null => rat(a.n * b.d, a.d * b.n);
/** Exact equality. */
export const ratEq = (a: Rat, b: Rat): boolean => a.n === b.n && a.d === b.d;
/** Sign comparison a ? b. */
export const ratCmp = (a: Rat, b: Rat): number => {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
};
/** Bit size, used to charge the operation budget and refuse explosive powers. */
export const ratBits = (a: Rat): number => bitLen(a.n) + bitLen(a.d);

/** Number of bits of |x|. */
export function bitLen(x: bigint): number {
  if (x < 0n) x = -x;
  if (x === 0n) return 0;
  const hex = x.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(hex[0]!, 16)));
}

/** Nearest double. */
export function ratToNumber(a: Rat): number {
  const nb = bitLen(a.n);
  const db = bitLen(a.d);
  if (nb < 1000 && db < 1000) return Number(a.n) / Number(a.d);
  // Scale both down so the quotient keeps its magnitude without overflowing.
  const shift = BigInt(Math.max(0, Math.min(nb, db) - 60));
  const q = Number(a.n >> shift) / Number(a.d >> shift);
  return q;
}

/** Rounds to `places` decimals, half to even (SymPy Float.round at these sizes), as a scaled integer. */
export function ratRoundScaled(a: Rat, places: number): bigint {
  const scale = 10n ** BigInt(places);
  const num = a.n * scale;
  let q = num / a.d;
  let r = num % a.d;
  if (r < 0n) {
    q -= 1n;
    r += a.d;
  }
  const twice = 2n * r;
  if (twice > a.d || (twice === a.d && q % 2n !== 0n)) q += 1n;
  return q;
}

/** Integer k-th root of a non-negative rational when exact, else null. */
export function ratRoot(a: Rat, k: number): Rat | null {
  if (a.n < 0n) {
    if (k % 2 === 0) return null;
    const r = ratRoot({ n: -a.n, d: a.d }, k);
    return r ? { n: -r.n, d: r.d } : null;
  }
  const rn = intRoot(a.n, k);
  const rd = intRoot(a.d, k);
  return rn !== null && rd !== null ? rat(rn, rd) : null;
}

function intRoot(x: bigint, k: number): bigint | null {
  if (x < 2n) return x;
  const bits = bitLen(x);
  if (bits > 4096) return null;
  const guess = BigInt(Math.round(Math.pow(Number(x), 1 / k)));
  if (Number.isFinite(Number(x))) {
    for (const c of [guess - 1n, guess, guess + 1n]) if (c >= 0n && c ** BigInt(k) === x) return c;
    return null;
  }
  // Newton iteration for big integers.
  let y = 1n << BigInt(Math.ceil(bits / k) + 1);
  const K = BigInt(k);
  for (let i = 0; i < 200; i++) {
    const next = ((K - 1n) * y + x / y ** (K - 1n)) / K;
    if (next >= y) break;
    y = next;
  }
  return y ** K === x ? y : null;
}
