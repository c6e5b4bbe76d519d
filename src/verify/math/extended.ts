/**
 * Extended-range real evaluation (value = m · 2^e with a double mantissa and an integer exponent), for
 * closed forms whose values overflow doubles, e.g. ((1+√3)^4033 − (1−√3)^4033) / (2^2017 √3).
 * Used only when plain doubles give ±∞; precision is a double's, range is unbounded.
 */
import type { Budget, Node } from "./node.ts";
import { exact } from "./evaluate.ts";
import { ratToNumber } from "./rational.ts";

/** m · 2^e, with 0.5 ≤ |m| < 1 (or m = 0). */
export interface X {
  m: number;
  e: number;
}

function norm(m: number, e: number): X {
  if (m === 0 || !Number.isFinite(m)) return { m, e: 0 };
  const k = Math.floor(Math.log2(Math.abs(m))) + 1;
  return { m: m / 2 ** k, e: e + k };
}
const fromNum = (x: number): X => norm(x, 0);
function add(a: X, b: X): X {
  if (a.m === 0) return b;
  if (b.m === 0) return a;
  const d = b.e - a.e;
  if (d > 1100) return b;
  if (d < -1100) return a;
  return d <= 0 ? norm(a.m + b.m * 2 ** d, a.e) : norm(a.m * 2 ** -d + b.m, b.e);
}
const mul = (a: X, b: X): X => norm(a.m * b.m, a.e + b.e);
const inv = (a: X): X | null => (a.m === 0 ? null : norm(1 / a.m, -a.e));
function powInt(a: X, k: number): X {
  let base = a;
  let acc = fromNum(1);
  let n = Math.abs(k);
  while (n > 0) {
    if (n & 1) acc = mul(acc, base);
    base = mul(base, base);
    n = Math.floor(n / 2);
  }
  return k < 0 ? (inv(acc) ?? { m: Number.NaN, e: 0 }) : acc;
}
function pow(a: X, y: number): X | null {
  if (Number.isInteger(y) && Math.abs(y) < 2 ** 31) return powInt(a, y);
  if (a.m < 0) return null;
  if (a.m === 0) return y > 0 ? a : null;
  const l = y * (Math.log2(a.m) + a.e);
  const e = Math.floor(l);
  return norm(2 ** (l - e), e);
}

/** Whether a tree is built from integers by +, ·, integer powers and fractions only (its value is rational). */
export function rationalTree(x: Node, b: Budget): boolean {
  b.spend();
  if (x.t === "num") return true;
  if (x.t === "add" || x.t === "mul") return x.args.every((a) => rationalTree(a, b));
  if (x.t === "pct") return rationalTree(x.arg, b);
  if (x.t === "pow") {
    if (!rationalTree(x.base, b)) return false;
    const e = x.exp.t === "num" ? x.exp.v : exact(x.exp, b);
    return e !== null && e.d === 1n;
  }
  if (x.t === "fn") return (x.name === "factorial" || x.name === "binom") && x.args.every((a) => rationalTree(a, b));
  return false;
}

/** Extended value of a symbol-free real tree, or null. */
export function extended(x: Node, b: Budget): X | null {
  b.spend();
  switch (x.t) {
    case "num":
      return fromNum(ratToNumber(x.v));
    case "const":
      return x.name === "pi" ? fromNum(Math.PI) : x.name === "E" ? fromNum(Math.E) : null;
    case "pct": {
      const v = extended(x.arg, b);
      return v ? mul(v, fromNum(0.01)) : null;
    }
    case "add":
    case "mul": {
      let acc = fromNum(x.t === "add" ? 0 : 1);
      for (const a of x.args) {
        const v = extended(a, b);
        if (!v) return null;
        acc = x.t === "add" ? add(acc, v) : mul(acc, v);
      }
      return acc;
    }
    case "pow": {
      const base = extended(x.base, b);
      const ex = extended(x.exp, b);
      if (!base || !ex || Math.abs(ex.e) > 60) return null;
      return pow(base, ex.m * 2 ** ex.e);
    }
    default:
      return null;
  }
}

/** Relative closeness of two extended values. */
export function closeX(a: X, c: X, rel: number): boolean {
  if (!Number.isFinite(a.m) || !Number.isFinite(c.m)) return false;
  const diff = add(a, { m: -c.m, e: c.e });
  if (diff.m === 0) return true;
  const big = a.e >= c.e ? a : c;
  return diff.e - big.e < Math.log2(rel);
}
