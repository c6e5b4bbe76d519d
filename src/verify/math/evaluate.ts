/** Evaluation of expression trees: exact (BigInt rationals) when possible, else complex doubles. */
import { Budget, type Node } from "./node.ts";
import {
  type Rat, bitLen, rat, ratAdd, ratBits, ratDiv, ratMul, ratRoot, ratToNumber,
} from "./rational.ts";

/** Exact value of a rational-valued tree, or null (irrational, symbolic, undefined or too large). */
export function exact(x: Node, b: Budget): Rat | null {
  b.spend();
  switch (x.t) {
    case "num":
      return x.v;
    case "pct": {
      const v = exact(x.arg, b);
      return v ? ratMul(v, { n: 1n, d: 100n }) : null;
    }
    case "add": {
      let acc: Rat = { n: 0n, d: 1n };
      for (const a of x.args) {
        const v = exact(a, b);
        if (!v) return null;
        b.spend(1 + (ratBits(v) >> 10));
        acc = ratAdd(acc, v);
      }
      return acc;
    }
    case "mul": {
      let acc: Rat = { n: 1n, d: 1n };
      for (const a of x.args) {
        const v = exact(a, b);
        if (!v) return null;
        b.spend(1 + (ratBits(v) >> 10));
        acc = ratMul(acc, v);
      }
      return acc;
    }
    case "pow":
      return exactPow(x.base, x.exp, b);
    case "fn":
      return exactFn(x.name, x.args, b);
    default:
      return null;
  }
}

const MAX_BITS = 200_000;

function exactPow(baseN: Node, expN: Node, b: Budget): Rat | null {
  const e = exact(expN, b);
  if (!e) return null;
  const base = exact(baseN, b);
  if (!base) return null;
  if (base.n === 0n) return e.n > 0n ? { n: 0n, d: 1n } : null;
  // Refuse results whose size would explode (10^{10^{10}}): the caller falls back to doubles.
  const k = e.n < 0n ? -e.n : e.n;
  if (bitLen(k) > 30) return null;
  const size = (Math.max(bitLen(base.n), bitLen(base.d)) * Number(k)) / Number(e.d);
  if (size > MAX_BITS) return null;
  b.spend(1 + Math.floor(size / 256));
  let r: Rat = { n: base.n ** k, d: base.d ** k };
  if (e.d !== 1n) {
    if (e.d > 64n) return null;
    const root = ratRoot(r, Number(e.d));
    if (!root) return null;
    r = root;
  }
  return e.n < 0n ? ratDiv({ n: 1n, d: 1n }, r) : rat(r.n, r.d);
}

function exactFn(name: string, args: Node[], b: Budget): Rat | null {
  if (name === "factorial" && args.length === 1) {
    const n = exact(args[0]!, b);
    if (!n || n.d !== 1n || n.n < 0n || n.n > 5000n) return null;
    let acc = 1n;
    for (let i = 2n; i <= n.n; i++) {
      acc *= i;
      b.spend(1 + (bitLen(acc) >> 12));
    }
    return { n: acc, d: 1n };
  }
  if (name === "binom" && args.length === 2) {
    const n = exact(args[0]!, b);
    const k = exact(args[1]!, b);
    if (!n || !k || n.d !== 1n || k.d !== 1n || k.n < 0n || k.n > 5000n) return null;
    let acc: Rat = { n: 1n, d: 1n };
    for (let i = 0n; i < k.n; i++) {
      acc = ratMul(acc, { n: n.n - i, d: i + 1n });
      b.spend();
    }
    return rat(acc.n, acc.d);
  }
  if (name === "abs" && args.length === 1) {
    const v = exact(args[0]!, b);
    return v ? { n: v.n < 0n ? -v.n : v.n, d: v.d } : null;
  }
  return null;
}

/** A complex double. */
export type C = [number, number];

const cadd = (a: C, c: C): C => [a[0] + c[0], a[1] + c[1]];
const cmul = (a: C, c: C): C => [a[0] * c[0] - a[1] * c[1], a[0] * c[1] + a[1] * c[0]];
function cdiv(a: C, c: C): C {
  const d = c[0] * c[0] + c[1] * c[1];
  return [(a[0] * c[0] + a[1] * c[1]) / d, (a[1] * c[0] - a[0] * c[1]) / d];
}
const cabs = (a: C): number => Math.hypot(a[0], a[1]);
const cexp = (a: C): C => {
  const m = Math.exp(a[0]);
  return a[1] === 0 ? [m, 0] : [m * Math.cos(a[1]), m * Math.sin(a[1])];
};
const clog = (a: C): C => [Math.log(cabs(a)), Math.atan2(a[1], a[0])];
function cpow(a: C, e: C): C {
  if (a[1] === 0 && e[1] === 0) {
    if (a[0] >= 0 || Number.isInteger(e[0])) return [Math.pow(a[0], e[0]), 0];
    // Odd roots of negatives: the principal complex root, as SymPy takes it.
  }
  if (a[0] === 0 && a[1] === 0) return e[0] > 0 ? [0, 0] : [Number.NaN, Number.NaN];
  return cexp(cmul(e, clog(a)));
}
const csin = (a: C): C => [Math.sin(a[0]) * Math.cosh(a[1]), Math.cos(a[0]) * Math.sinh(a[1])];
const ccos = (a: C): C => [Math.cos(a[0]) * Math.cosh(a[1]), -Math.sin(a[0]) * Math.sinh(a[1])];

/** Complex value of a tree with symbols bound by `env`, or null when it has no number value. */
export function numeric(x: Node, env: Map<string, C>, b: Budget): C | null {
  b.spend();
  switch (x.t) {
    case "num":
      return [ratToNumber(x.v), 0];
    case "sym":
      return env.get(x.name) ?? null;
    case "const":
      return x.name === "pi" ? [Math.PI, 0] : x.name === "E" ? [Math.E, 0] : x.name === "I" ? [0, 1] : [Infinity, 0];
    case "pct": {
      const v = numeric(x.arg, env, b);
      return v ? [v[0] / 100, v[1] / 100] : null;
    }
    case "add": {
      let acc: C = [0, 0];
      for (const a of x.args) {
        const v = numeric(a, env, b);
        if (!v) return null;
        acc = cadd(acc, v);
      }
      return acc;
    }
    case "mul": {
      let acc: C = [1, 0];
      for (const a of x.args) {
        const v = numeric(a, env, b);
        if (!v) return null;
        acc = cmul(acc, v);
      }
      return acc;
    }
    case "pow": {
      const base = numeric(x.base, env, b);
      const e = numeric(x.exp, env, b);
      if (!base || !e) return null;
      if (e[1] === 0 && e[0] === -1) return cdiv([1, 0], base);
      return cpow(base, e);
    }
    case "fn":
      return numericFn(x.name, x.args, env, b);
    default:
      return null;
  }
}

function numericFn(name: string, args: Node[], env: Map<string, C>, b: Budget): C | null {
  if (name === "sum" || name === "prod") return bigOp(name, args, env, b);
  const vs: C[] = [];
  for (const a of args) {
    const v = numeric(a, env, b);
    if (!v) return null;
    vs.push(v);
  }
  const a = vs[0];
  if (!a) return null;
  switch (name) {
    case "sin": return csin(a);
    case "cos": return ccos(a);
    case "tan": return cdiv(csin(a), ccos(a));
    case "cot": return cdiv(ccos(a), csin(a));
    case "sec": return cdiv([1, 0], ccos(a));
    case "csc": return cdiv([1, 0], csin(a));
    case "exp": return cexp(a);
    case "log": return vs.length === 2 ? cdiv(clog(a), clog(vs[1]!)) : clog(a);
    case "logb": return cdiv(clog(a), clog(vs[1]!));
    case "log10": return cdiv(clog(a), [Math.LN10, 0]);
    case "abs": return [cabs(a), 0];
    case "arcsin": return a[1] === 0 && Math.abs(a[0]) <= 1 ? [Math.asin(a[0]), 0] : null;
    case "arccos": return a[1] === 0 && Math.abs(a[0]) <= 1 ? [Math.acos(a[0]), 0] : null;
    case "arctan": return a[1] === 0 ? [Math.atan(a[0]), 0] : null;
    case "sinh": return a[1] === 0 ? [Math.sinh(a[0]), 0] : null;
    case "cosh": return a[1] === 0 ? [Math.cosh(a[0]), 0] : null;
    case "tanh": return a[1] === 0 ? [Math.tanh(a[0]), 0] : null;
    case "floor": return a[1] === 0 ? [Math.floor(a[0]), 0] : null;
    case "ceil": return a[1] === 0 ? [Math.ceil(a[0]), 0] : null;
    case "factorial": return a[1] === 0 && Number.isInteger(a[0]) && a[0] >= 0 ? [factorial(a[0]), 0] : null;
    case "binom": {
      const k = vs[1]!;
      if (k[1] !== 0 || !Number.isInteger(k[0]) || k[0] < 0 || k[0] > 1000) return null;
      let acc: C = [1, 0];
      for (let i = 0; i < k[0]; i++) acc = cmul(acc, [(a[0] - i) / (i + 1), a[1] / (i + 1)]);
      return acc;
    }
    default:
      return null;
  }
}

function factorial(n: number): number {
  if (n > 170) return Infinity;
  let r = 1;
  for (let i = 2; i <= n; i++) r *= i;
  return r;
}

function bigOp(name: string, args: Node[], env: Map<string, C>, b: Budget): C | null {
  const [lo, hi, body] = args as [Node, Node, Node];
  if (lo.t !== "rel" || lo.lhs.t !== "sym") return null;
  const from = numeric(lo.rhs, env, b);
  const to = numeric(hi, env, b);
  if (!from || !to || !Number.isInteger(from[0]) || !Number.isInteger(to[0]) || to[0] - from[0] > 10_000) return null;
  let acc: C = name === "sum" ? [0, 0] : [1, 0];
  const inner = new Map(env);
  for (let k = from[0]; k <= to[0]; k++) {
    inner.set(lo.lhs.name, [k, 0]);
    const v = numeric(body, inner, b);
    if (!v) return null;
    acc = name === "sum" ? cadd(acc, v) : cmul(acc, v);
  }
  return acc;
}

/** |a - b| small relative to their size. */
export function close(a: C, c: C, rel: number): boolean {
  if (![a[0], a[1], c[0], c[1]].every(Number.isFinite)) return false;
  const d = Math.hypot(a[0] - c[0], a[1] - c[1]);
  return d <= rel * Math.max(1, cabs(a), cabs(c));
}

/** Nearest-double value of a tree without symbols (exact first), or null. */
export function valueOf(x: Node, b: Budget): C | null {
  const e = exact(x, b);
  if (e) return [ratToNumber(e), 0];
  return numeric(x, new Map(), b);
}

export { Budget };
