/**
 * A SymPy-style string of a value (`str(expr)`), which upstream records as `extracted_answer` and uses
 * as the majority@k vote key. Common shapes print as SymPy prints them (integers, rationals, floats to
 * 15 significant digits, sqrt, pi, sets, tuples, intervals, Eq); SymPy's canonical term order is not
 * reproduced, so a long expression may print its terms in the order they were written.
 */
import { type Node, freeSymbols } from "./node.ts";
import { ratToNumber } from "./rational.ts";

/** SymPy's `str(Float(x))` at 15 digits: "2.50000000000000", "1.00000000000000e+20". */
export function floatStr(x: number): string {
  if (x === 0) return "0";
  const exp = Math.floor(Math.log10(Math.abs(x)));
  if (exp >= 15 || exp < -5) {
    const [m, e] = x.toExponential(14).split("e");
    return `${m}e${e!.startsWith("-") ? e : `+${e!.slice(1)}`}`;
  }
  return x.toFixed(Math.max(0, 14 - exp));
}

const PREC = { add: 1, mul: 2, pow: 3, atom: 4 } as const;

function prec(x: Node): number {
  if (x.t === "add") return PREC.add;
  if (x.t === "mul" || x.t === "pct") return PREC.mul;
  if (x.t === "num") return x.v.d !== 1n || x.v.n < 0n ? PREC.mul : PREC.atom;
  if (x.t === "pow") return PREC.pow;
  return PREC.atom;
}

const wrap = (x: Node, min: number) => (prec(x) < min ? `(${sympyStr(x)})` : sympyStr(x));
const isNegOne = (x: Node) => x.t === "num" && x.v.n === -1n && x.v.d === 1n;
const isHalf = (x: Node) => x.t === "num" && x.v.n === 1n && x.v.d === 2n;

/** The SymPy `str()` of a value. */
export function sympyStr(x: Node): string {
  switch (x.t) {
    case "num":
      if (x.float) return floatStr(ratToNumber(x.v));
      return x.v.d === 1n ? String(x.v.n) : `${x.v.n}/${x.v.d}`;
    case "sym":
      return x.name;
    case "const":
      return x.name;
    case "text":
      return x.s;
    case "pct":
      return `${wrap(x.arg, PREC.mul)}/100`;
    case "add":
      return addOrder(x.args)
        .map((a, i) => {
          const s = wrap(a, PREC.add);
          if (i === 0) return s;
          return s.startsWith("-") ? ` - ${s.slice(1)}` : ` + ${s}`;
        })
        .join("");
    case "mul": {
      let sign = "";
      let args = x.args;
      if (args.length > 1 && isNegOne(args[0]!)) {
        sign = "-";
        args = args.slice(1);
      }
      const num = args.filter((a) => !(a.t === "pow" && isNegOne(a.exp)));
      const den = args.filter((a) => a.t === "pow" && isNegOne(a.exp)).map((a) => (a as { base: Node }).base);
      const top = num.length === 0 ? "1" : num.map((a) => wrap(a, PREC.mul)).join("*");
      if (den.length === 0) return sign + top;
      const bottom = den.length === 1 ? wrap(den[0]!, PREC.pow) : `(${den.map((a) => wrap(a, PREC.mul)).join("*")})`;
      return `${sign}${num.length > 1 ? `(${top})` : top}/${bottom}`;
    }
    case "pow":
      if (isHalf(x.exp)) return `sqrt(${sympyStr(x.base)})`;
      if (isNegOne(x.exp)) return `1/${wrap(x.base, PREC.pow)}`;
      return `${wrap(x.base, PREC.atom)}**${wrap(x.exp, PREC.atom)}`;
    case "fn": {
      const name = x.name.startsWith("f:") ? x.name.slice(2) : FN_NAMES[x.name] ?? x.name;
      return `${name}(${x.args.map(sympyStr).join(", ")})`;
    }
    case "rel":
      if (x.op === "=") return `Eq(${sympyStr(x.lhs)}, ${sympyStr(x.rhs)})`;
      if (x.op === "!=") return `Ne(${sympyStr(x.lhs)}, ${sympyStr(x.rhs)})`;
      return `${sympyStr(x.lhs)} ${x.op} ${sympyStr(x.rhs)}`;
    case "and":
      return x.args.map((a) => `(${sympyStr(a)})`).join(" & ");
    case "set":
      return x.elems.length === 0 ? "EmptySet" : `{${sortedForSet(x.elems).map(sympyStr).join(", ")}}`;
    case "tuple":
      return `(${x.elems.map(sympyStr).join(", ")}${x.elems.length === 1 ? "," : ""})`;
    case "interval": {
      const kind = x.lopen && x.ropen ? ".open" : x.lopen ? ".Lopen" : x.ropen ? ".Ropen" : "";
      return `Interval${kind}(${sympyStr(x.lo)}, ${sympyStr(x.hi)})`;
    }
    case "setop":
      return `${x.op === "union" ? "Union" : x.op === "inter" ? "Intersection" : "Complement"}(${x.args.map(sympyStr).join(", ")})`;
    case "matrix":
      return `Matrix([${x.rows.map((r) => `[${r.map(sympyStr).join(", ")}]`).join(", ")}])`;
  }
}

// SymPy's term order, in its two most visible cases: with symbols, the constant goes last (x + 1);
// without symbols, the rational goes first (1 + sqrt(3)).
function addOrder(args: Node[]): Node[] {
  const hasSym = (a: Node) => freeSymbols(a).size > 0;
  if (args.some(hasSym)) return [...args.filter(hasSym), ...args.filter((a) => !hasSym(a))];
  return [...args.filter((a) => a.t === "num"), ...args.filter((a) => a.t !== "num")];
}

const FN_NAMES: Record<string, string> = { abs: "Abs", log10: "log10", logb: "log" };

// SymPy prints a finite set of numbers in increasing order.
function sortedForSet(xs: Node[]): Node[] {
  if (!xs.every((x) => x.t === "num")) return xs;
  const value = (x: Node) => (x.t === "num" ? ratToNumber(x.v) : 0);
  return [...xs].sort((a, b) => value(a) - value(b));
}
