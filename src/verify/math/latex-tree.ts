/** Tree builders the LaTeX parser uses and the comparison tier shares: numbers, products, quotients, ±. */
import { type Node, int, neg } from "./node.ts";
import { ratDiv, ratFromDecimal } from "./rational.ts";
import { ParseError } from "./tokens.ts";

/** A number token as a node (exact rational; `float` when written with a point). */
export function numNode(text: string): Node {
  const v = ratFromDecimal(text);
  if (!v) throw new ParseError(`bad number ${text}`);
  return { t: "num", v, float: text.includes(".") };
}

/** a · b, flattening nested products. */
export function mul(a: Node, b: Node): Node {
  const args = [...(a.t === "mul" ? a.args : [a]), ...(b.t === "mul" ? b.args : [b])];
  return { t: "mul", args };
}

/** a / b: exact when both are integers, else a · b⁻¹. */
export function divide(a: Node, b: Node): Node {
  if (a.t === "num" && b.t === "num" && !a.float && !b.float) {
    const q = ratDiv(a.v, b.v);
    if (q) return { t: "num", v: q, float: false };
  }
  return mul(a, { t: "pow", base: b, exp: int(-1) });
}

/** Whether a tree is symbols only (x, ab, A/S): the left side of an assignment. */
export function onlySymbols(x: Node): boolean {
  if (x.t === "sym") return true;
  if (x.t === "mul") return x.args.every(onlySymbols);
  if (x.t === "pow") return x.exp.t === "num" && x.exp.v.n === -1n && onlySymbols(x.base);
  if (x.t === "tuple") return x.elems.every(onlySymbols);
  // As upstream: any function whose arguments are only symbols (f(x), |AB|) counts.
  if (x.t === "fn") return x.args.length > 0 && x.args.every(onlySymbols);
  return false;
}

/** Sign of b - a when both ends are plain numbers (null when unknown). */
export function orderOf(a: Node, b: Node): number | null {
  const va = plainValue(a);
  const vb = plainValue(b);
  if (va === null || vb === null) return null;
  return va > vb ? 1 : va === vb ? 0 : -1;
}

/** A plain number or ±∞ as a JS number (null otherwise). */
function plainValue(x: Node): number | null {
  if (x.t === "num") return Number(x.v.n) / Number(x.v.d);
  if (x.t === "const" && x.name === "oo") return Infinity;
  if (x.t === "mul" && x.args.length === 2 && x.args[0]!.t === "num" && x.args[1]!.t === "const" && x.args[1]!.name === "oo") {
    return x.args[0]!.v.n < 0n ? -Infinity : Infinity;
  }
  return null;
}

/** `a ± b` is two answers: a + b and a - b (`±b` is -b and b). */
export function expandPm(x: Node): Node[] {
  if (x.t === "fn" && x.name === "pm") {
    if (x.args.length === 1) return [neg(x.args[0]!), x.args[0]!];
    return [{ t: "add", args: [x.args[0]!, x.args[1]!] }, { t: "add", args: [x.args[0]!, neg(x.args[1]!)] }];
  }
  if (x.t === "rel" && x.rhs.t === "fn" && x.rhs.name === "pm") {
    return expandPm(x.rhs).map((r) => ({ ...x, rhs: r }));
  }
  if (x.t === "mul" || x.t === "add") {
    const k = x.args.findIndex((a) => a.t === "fn" && a.name === "pm");
    if (k >= 0) {
      return expandPm(x.args[k]!).map((v) => ({ ...x, args: x.args.map((a, j) => (j === k ? v : a)) }));
    }
  }
  return [x];
}

