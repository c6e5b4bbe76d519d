/** The expression tree both parsers produce and the comparer reads. */
import type { Rat } from "./rational.ts";

/** A relation operator. */
export type RelOp = "=" | "<" | "<=" | ">" | ">=" | "!=";

/** One parsed mathematical object. */
export type Node =
  | { t: "num"; v: Rat; float: boolean }
  | { t: "sym"; name: string }
  | { t: "const"; name: "pi" | "E" | "I" | "oo" }
  | { t: "add"; args: Node[] }
  | { t: "mul"; args: Node[] }
  | { t: "pow"; base: Node; exp: Node }
  | { t: "fn"; name: string; args: Node[] }
  | { t: "pct"; arg: Node }
  | { t: "rel"; op: RelOp; lhs: Node; rhs: Node }
  | { t: "and"; args: Node[] }
  | { t: "set"; elems: Node[] }
  | { t: "tuple"; elems: Node[] }
  | { t: "interval"; lo: Node; hi: Node; lopen: boolean; ropen: boolean }
  | { t: "setop"; op: "union" | "inter" | "minus"; args: Node[] }
  | { t: "matrix"; rows: Node[][] }
  | { t: "text"; s: string };

/** Thrown when a parse or comparison exceeds its operation budget (caught where the verdict is decided). */
export class BudgetExceeded extends Error {
  override name = "BudgetExceeded";
}

/** A counter of work done; deterministic in place of a wall-clock timeout (D40). */
export class Budget {
  constructor(public left: number) {}
  /** Charges `n` operations; throws BudgetExceeded when spent. */
  spend(n = 1): void {
    this.left -= n;
    if (this.left < 0) throw new BudgetExceeded("operation budget exceeded");
  }
}

/** -x. */
export const neg = (x: Node): Node =>
  x.t === "num" ? { t: "num", v: { n: -x.v.n, d: x.v.d }, float: x.float } : { t: "mul", args: [int(-1), x] };
/** An integer literal. */
export const int = (k: number | bigint): Node => ({ t: "num", v: { n: BigInt(k), d: 1n }, float: false });
/** a - b as a tree. */
export const sub = (a: Node, b: Node): Node => ({ t: "add", args: [a, neg(b)] });

/** Whether a node is a set-like value (sets, intervals, set operations). */
export const isSetLike = (x: Node): boolean => x.t === "set" || x.t === "interval" || x.t === "setop";
/** Whether a node is a relation or a chain of relations. */
export const isRelation = (x: Node): boolean => x.t === "rel" || (x.t === "and" && x.args.length > 0 && x.args.every((a) => a.t === "rel"));

/** Free symbols (names) in a node. */
export function freeSymbols(x: Node, out = new Set<string>()): Set<string> {
  switch (x.t) {
    case "sym":
      out.add(x.name);
      break;
    case "add":
    case "mul":
    case "and":
    case "fn":
    case "setop":
      for (const a of x.args) freeSymbols(a, out);
      break;
    case "pow":
      freeSymbols(x.base, out);
      freeSymbols(x.exp, out);
      break;
    case "pct":
      freeSymbols(x.arg, out);
      break;
    case "rel":
      freeSymbols(x.lhs, out);
      freeSymbols(x.rhs, out);
      break;
    case "set":
    case "tuple":
      for (const a of x.elems) freeSymbols(a, out);
      break;
    case "interval":
      freeSymbols(x.lo, out);
      freeSymbols(x.hi, out);
      break;
    case "matrix":
      for (const r of x.rows) for (const a of r) freeSymbols(a, out);
      break;
  }
  return out;
}

/** A canonical text key: equal keys mean structurally equal trees (SymPy's `==`). */
export function key(x: Node): string {
  switch (x.t) {
    case "num":
      return x.float ? `f${x.v.n}/${x.v.d}` : `${x.v.n}/${x.v.d}`;
    case "sym":
      return `s:${x.name}`;
    case "const":
      return `c:${x.name}`;
    case "add":
      return `+(${x.args.map(key).sort().join(",")})`;
    case "mul":
      return `*(${x.args.map(key).sort().join(",")})`;
    case "pow":
      return `^(${key(x.base)},${key(x.exp)})`;
    case "fn":
      return `${x.name}(${x.args.map(key).join(",")})`;
    case "pct":
      return `%(${key(x.arg)})`;
    case "rel":
      return `${x.op}(${key(x.lhs)},${key(x.rhs)})`;
    case "and":
      return `&(${x.args.map(key).join(",")})`;
    case "set":
      return `{${[...new Set(x.elems.map(key))].sort().join(",")}}`;
    case "tuple":
      return `T(${x.elems.map(key).join(",")})`;
    case "interval":
      return `I${x.lopen ? "(" : "["}${key(x.lo)},${key(x.hi)}${x.ropen ? ")" : "]"}`;
    case "setop":
      return `${x.op}(${x.args.map(key).join(",")})`;
    case "matrix":
      return `M[${x.rows.map((r) => r.map(key).join(",")).join(";")}]`;
    case "text":
      return `t:${x.s}`;
  }
}
