/** Deciding whether a predicted value equals the gold value: math-verify's rules over our trees. */
import { type C, close, exact, numeric } from "./evaluate.ts";
import { closeX, extended, rationalTree } from "./extended.ts";
import { onlySymbols } from "./latex-tree.ts";
import { Budget, type Node, type RelOp, freeSymbols, isRelation, isSetLike, key, neg, sub } from "./node.ts";
import { type Rat, ratAdd, ratEq, ratMul, ratRoundScaled } from "./rational.ts";

/** Comparison settings (math-verify's verify() arguments). */
export interface CompareOptions {
  floatRounding: number;
  strict: boolean;
  allowSetRelation: boolean;
}

/** Upstream's defaults: 6 places, strict, no set/relation comparison unless the prediction is a set. */
export const DEFAULT_COMPARE: CompareOptions = { floatRounding: 6, strict: true, allowSetRelation: false };

const INVERSE: Record<RelOp, RelOp> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!=" };

/** gold ≡ pred under math-verify's rules; throws BudgetExceeded when the budget runs out. */
export function exprEq(goldIn: Node, predIn: Node, o: CompareOptions, b: Budget): boolean {
  b.spend();
  let gold = goldIn;
  let pred = predIn;
  if (!o.strict) pred = renameSymbols(pred, gold);
  const goldAssign = isAssignment(gold);
  const predAssign = isAssignment(pred);
  const goldEqn = isEquation(gold);
  const predEqn = isEquation(pred);
  if (goldAssign) gold = { t: "rel", op: "=", lhs: firstRel(gold).lhs, rhs: lastRel(gold).rhs };
  if (predAssign) pred = { t: "rel", op: "=", lhs: firstRel(pred).lhs, rhs: lastRel(pred).rhs };
  if (predEqn && !goldEqn) pred = lastRel(pred).rhs;
  else if (goldAssign && !predEqn) gold = lastRel(gold).rhs;
  if (isRelation(gold) && isSetLike(pred)) gold = relationAsSet(gold) ?? gold;
  if (o.allowSetRelation && isRelation(pred) && isSetLike(gold)) pred = relationAsSet(pred) ?? pred;
  if (key(gold) === key(pred)) return true;
  if (isRelation(gold) && isRelation(pred)) return relationsEq(gold, pred, o, b);
  if (isSetLike(gold) || isSetLike(pred) || gold.t === "tuple" || pred.t === "tuple") return setsEq(gold, pred, o, b);
  if (gold.t === "sym" || pred.t === "sym") return symbolsEq(gold, pred);
  if (gold.t === "text" || pred.t === "text") return false;
  return scalarEq(gold, pred, o, b);
}

const isNumAtom = (x: Node) => x.t === "num" || (x.t === "pct" && x.arg.t === "num");
const isFloatAtom = (x: Node) => (x.t === "num" && x.float) || (x.t === "pct" && x.arg.t === "num" && x.arg.float);

function scalarEq(a: Node, c: Node, o: CompareOptions, b: Budget): boolean {
  if (hasMatrix(a) || hasMatrix(c)) {
    a = matrixValue(a) ?? a;
    c = matrixValue(c) ?? c;
    if (a.t !== "matrix" || c.t !== "matrix") return false;
    const cm: Matrix = c;
    if (a.rows.length !== cm.rows.length || a.rows[0]!.length !== cm.rows[0]!.length) return false;
    return a.rows.every((r, i) => r.every((x, j) => exprEq(x, cm.rows[i]![j]!, o, b)));
  }
  if (isNumAtom(a) || isNumAtom(c)) {
    if (isFloatAtom(a) || isFloatAtom(c)) {
      if (roundedEq(a, c, o.floatRounding, b)) return true;
    } else {
      const ea = exact(a, b);
      const ec = exact(c, b);
      if (ea && ec) return ratEq(ea, ec);
    }
  } else {
    const fa = freeSymbols(a);
    const fc = freeSymbols(c);
    if (fa.size === 0 && fc.size === 0) {
      const ea = exact(a, b);
      const ec = exact(c, b);
      if (ea && ec) return ratEq(ea, ec);
    }
  }
  return identical(a, c, b);
}

type Matrix = Extract<Node, { t: "matrix" }>;

function hasMatrix(x: Node): boolean {
  return x.t === "matrix" || ((x.t === "add" || x.t === "mul") && x.args.some(hasMatrix));
}

// Sums and products of matrices (and scalars) as one matrix of unevaluated entries.
function matrixValue(x: Node): Node | null {
  if (x.t === "matrix") return x;
  if (x.t !== "add" && x.t !== "mul") return null;
  let acc: Node | null = null;
  for (const a of x.args) {
    const m = hasMatrix(a) ? matrixValue(a) : a;
    if (!m) return null;
    if (acc === null) {
      acc = m;
      continue;
    }
    if (x.t === "add") {
      if (acc.t !== "matrix" || m.t !== "matrix") return null;
      const am: Matrix = acc;
      if (am.rows.length !== m.rows.length || am.rows[0]!.length !== m.rows[0]!.length) return null;
      acc = { t: "matrix", rows: am.rows.map((r, i) => r.map((e, j) => ({ t: "add", args: [e, m.rows[i]![j]!] }) as Node)) };
    } else if (acc.t === "matrix" && m.t === "matrix") {
      const am: Matrix = acc;
      if (am.rows[0]!.length !== m.rows.length) return null;
      acc = {
        t: "matrix",
        rows: am.rows.map((r) => m.rows[0]!.map((_, j) => ({ t: "add", args: r.map((e, k) => ({ t: "mul", args: [e, m.rows[k]![j]!] }) as Node) }) as Node)),
      };
    } else {
      const mat: Node = acc.t === "matrix" ? acc : m;
      const k: Node = acc.t === "matrix" ? m : acc;
      if (mat.t !== "matrix") return null;
      acc = { t: "matrix", rows: mat.rows.map((r) => r.map((e) => ({ t: "mul", args: [k, e] }) as Node)) };
    }
  }
  return acc;
}

function roundedEq(a: Node, c: Node, places: number, b: Budget): boolean {
  const ea = exact(a, b);
  const ec = exact(c, b);
  if (ea && ec) return ratRoundScaled(ea, places) === ratRoundScaled(ec, places);
  const va = numeric(a, new Map(), b);
  const vc = numeric(c, new Map(), b);
  if (!va || !vc || va[1] !== 0 || vc[1] !== 0 || !Number.isFinite(va[0]) || !Number.isFinite(vc[0])) return false;
  const s = 10 ** places;
  return Math.round(va[0] * s) === Math.round(vc[0] * s);
}

// A fixed seed: the same pair gets the same points on every machine (D40).
function points(names: string[], count: number): Map<string, C>[] {
  let seed = 0x9e3779b9;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: Map<string, C>[] = [];
  for (let k = 0; k < count; k++) {
    const env = new Map<string, C>();
    for (const n of names) env.set(n, [0.35 + 2.1 * next(), 0]);
    out.push(env);
  }
  return out;
}

/** a − c vanishes: exactly or numerically at seeded random points (our stand-in for simplify(a − c) == 0). */
export function identical(a: Node, c: Node, b: Budget): boolean {
  const names = [...new Set([...freeSymbols(a), ...freeSymbols(c)])].sort();
  const envs = names.length === 0 ? [new Map<string, C>()] : points(names, 4);
  let tested = 0;
  for (const env of envs) {
    const va = numeric(a, env, b);
    const vc = numeric(c, env, b);
    if (!va || !vc) return false;
    const fin = [...va, ...vc].every(Number.isFinite);
    if (!fin) {
      if (names.length > 0) {
        if ([...va, ...vc].some(Number.isNaN)) continue;
        return key(simplify(a, b)) === key(simplify(c, b));
      }
      // Beyond doubles. Rational values too large to compute (10^{10^{10}} + 1) are only equal when their
      // simplified trees are; irrational closed forms are compared in extended range.
      if (rationalTree(a, b) && rationalTree(c, b)) return key(simplify(a, b)) === key(simplify(c, b));
      const xa = extended(a, b);
      const xc = extended(c, b);
      if (xa && xc) return closeX(xa, xc, 1e-9);
      return key(simplify(a, b)) === key(simplify(c, b));
    }
    if (!close(va, vc, 1e-10)) return false;
    tested++;
  }
  return tested > 0;
}

/** A small simplifier: flattens sums and products, drops +0 and ·1, folds exact numbers. */
export function simplify(x: Node, b: Budget): Node {
  b.spend();
  if (x.t !== "add" && x.t !== "mul") return mapChildren(x, (c) => simplify(c, b));
  const flat: Node[] = [];
  for (const a of x.args.map((c) => simplify(c, b))) {
    if (a.t === x.t) flat.push(...a.args);
    else flat.push(a);
  }
  let acc: Rat = x.t === "add" ? { n: 0n, d: 1n } : { n: 1n, d: 1n };
  let float = false;
  const rest: Node[] = [];
  for (const a of flat) {
    if (a.t === "num") {
      acc = x.t === "add" ? ratAdd(acc, a.v) : ratMul(acc, a.v);
      float ||= a.float;
    } else rest.push(a);
  }
  if (x.t === "mul" && acc.n === 0n) return { t: "num", v: acc, float };
  const identity = x.t === "add" ? acc.n === 0n : acc.n === acc.d;
  if (!identity || rest.length === 0) rest.unshift({ t: "num", v: acc, float });
  return rest.length === 1 ? rest[0]! : { t: x.t, args: rest };
}

function symbolsEq(g: Node, p: Node): boolean {
  const isE = (x: Node) => x.t === "const" && x.name === "E";
  if ((g.t === "sym" && g.name === "e" && isE(p)) || (p.t === "sym" && p.name === "e" && isE(g))) return true;
  const concat = (x: Node) =>
    x.t === "mul" && x.args.every((a) => a.t === "sym" || isE(a))
      ? x.args.map((a) => (a.t === "sym" ? a.name : "e")).join("")
      : null;
  if (g.t === "sym" && p.t === "mul") return concat(p)?.toLowerCase() === g.name.toLowerCase();
  if (p.t === "sym" && g.t === "mul") return concat(g)?.toLowerCase() === p.name.toLowerCase();
  if (g.t === "sym" && p.t === "sym") {
    const gn = g.name.length > 1 ? g.name.toLowerCase() : g.name;
    const pn = p.name.length > 1 ? p.name.toLowerCase() : p.name;
    return gn === pn;
  }
  return false;
}

function relationsEq(g: Node, p: Node, o: CompareOptions, b: Budget): boolean {
  if (g.t === "and" && p.t === "and") {
    return g.args.length === p.args.length && g.args.every((x, i) => relationsEq(x, p.args[i]!, o, b));
  }
  if (g.t !== "rel" || p.t !== "rel") return false;
  if (g.op === p.op && exprEq(sub(g.lhs, g.rhs), sub(p.lhs, p.rhs), o, b)) return true;
  if (INVERSE[g.op] === p.op && exprEq(sub(g.lhs, g.rhs), sub(p.rhs, p.lhs), o, b)) return true;
  return sameSolutions(g, p, b);
}

// Same solution set for relations in the same variables: g.lhs − g.rhs is a constant multiple of p's
// (positive for the same inequality, negative for the flipped one, any non-zero for equations).
function sameSolutions(g: Node & { t: "rel" }, p: Node & { t: "rel" }, b: Budget): boolean {
  const fg = [...freeSymbols(g)].sort();
  const fp = [...freeSymbols(p)].sort();
  if (fg.length === 0 || fg.join() !== fp.join()) return false;
  if (g.lhs.t === "set" || g.rhs.t === "set" || p.lhs.t === "set" || p.rhs.t === "set") return false;
  const dg = sub(g.lhs, g.rhs);
  const dp = sub(p.lhs, p.rhs);
  let ratio: number | null = null;
  for (const env of points(fg, 4)) {
    const a = numeric(dg, env, b);
    const c = numeric(dp, env, b);
    if (!a || !c || a[1] !== 0 || c[1] !== 0 || c[0] === 0 || !Number.isFinite(a[0] / c[0])) return false;
    const r = a[0] / c[0];
    if (ratio === null) ratio = r;
    else if (Math.abs(r - ratio) > 1e-9 * Math.max(1, Math.abs(ratio))) return false;
  }
  if (ratio === null || ratio === 0) return false;
  if (g.op === "=" && p.op === "=") return true;
  if (g.op === "!=" || p.op === "!=") return g.op === p.op;
  return g.op === p.op ? ratio > 0 : INVERSE[g.op] === p.op ? ratio < 0 : false;
}

function elemsOf(x: Node): Node[] | null {
  return x.t === "set" || x.t === "tuple" ? x.elems : null;
}

function setsEq(gIn: Node, pIn: Node, o: CompareOptions, b: Budget): boolean {
  const wrap = (x: Node): Node => (isSetLike(x) || x.t === "tuple" ? x : { t: "set", elems: [x] });
  const g = wrap(gIn);
  const p = wrap(pIn);
  if (g.t === "interval" && p.t === "interval") {
    return g.lopen === p.lopen && g.ropen === p.ropen && exprEq(g.lo, p.lo, o, b) && exprEq(g.hi, p.hi, o, b);
  }
  if (key(g) === key(p)) return true;
  if (g.t === "setop" && p.t === "setop") {
    return g.op === p.op && g.op === "union" ? matchAll(flatUnion(g), flatUnion(p), o, b) : g.args.every((a, i) => p.args[i] && exprEq(a, p.args[i]!, o, b));
  }
  const ge = elemsOf(g);
  const pe = elemsOf(p);
  if (ge && pe) {
    if (ge.length !== pe.length) return false;
    if (g.t === "set" && p.t === "set") return matchAll(dedupe(ge), dedupe(pe), o, b);
    return ge.every((x, i) => exprEq(x, pe[i]!, o, b));
  }
  if (g.t === "interval" && pe && g.lopen && g.ropen && pe.length === 2) {
    return exprEq(g.lo, pe[0]!, o, b) && exprEq(g.hi, pe[1]!, o, b);
  }
  if (p.t === "interval" && ge && p.lopen && p.ropen && ge.length === 2) {
    return exprEq(ge[0]!, p.lo, o, b) && exprEq(ge[1]!, p.hi, o, b);
  }
  return false;
}

function dedupe(xs: Node[]): Node[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function flatUnion(x: Node): Node[] {
  return x.t === "setop" && x.op === "union" ? x.args.flatMap(flatUnion) : [x];
}

// Order-insensitive: every gold element pairs with a distinct equal prediction element.
function matchAll(gs: Node[], ps: Node[], o: CompareOptions, b: Budget): boolean {
  if (gs.length !== ps.length) return false;
  const used = new Array<boolean>(ps.length).fill(false);
  for (const gx of gs) {
    let found = false;
    for (let j = 0; j < ps.length; j++) {
      if (!used[j] && exprEq(gx, ps[j]!, o, b)) {
        used[j] = true;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

function isAssignment(x: Node): boolean {
  if (x.t === "rel") return x.op === "=" && onlySymbols(x.lhs);
  if (x.t === "and" && x.args.length > 0) {
    return x.args.every((a) => a.t === "rel" && a.op === "=") && onlySymbols((x.args[0] as { lhs: Node }).lhs);
  }
  return false;
}
function isEquation(x: Node): boolean {
  if (x.t === "rel") return x.op === "=";
  return x.t === "and" && x.args.length > 0 && x.args.every((a) => a.t === "rel" && a.op === "=");
}
function firstRel(x: Node): Node & { t: "rel" } {
  return (x.t === "and" ? x.args[0] : x) as Node & { t: "rel" };
}
function lastRel(x: Node): Node & { t: "rel" } {
  return (x.t === "and" ? lastRel(x.args[x.args.length - 1]!) : x) as Node & { t: "rel" };
}

/** A one-variable inequality (or chain) as an interval; x = a as {a}; null when it is not that simple. */
function relationAsSet(x: Node): Node | null {
  const rels = x.t === "and" ? x.args : [x];
  let lo: Node = { t: "mul", args: [{ t: "num", v: { n: -1n, d: 1n }, float: false }, { t: "const", name: "oo" }] };
  let hi: Node = { t: "const", name: "oo" };
  let lopen = true;
  let ropen = true;
  let variable: string | null = null;
  const isVar = (n: Node) => n.t === "sym" || (n.t === "fn" && (n.name.startsWith("f:") || n.name === "abs") && n.args.every((a) => a.t === "sym"));
  for (const r of rels) {
    if (r.t !== "rel") return null;
    let op = r.op;
    let bound: Node;
    if (isVar(r.lhs) && freeSymbols(r.rhs).size === 0) {
      bound = r.rhs;
      if (variable !== null && variable !== key(r.lhs)) return null;
      variable = key(r.lhs);
    } else if (isVar(r.rhs) && freeSymbols(r.lhs).size === 0) {
      bound = r.lhs;
      op = INVERSE[op];
      if (variable !== null && variable !== key(r.rhs)) return null;
      variable = key(r.rhs);
    } else return null;
    if (op === "=") {
      if (rels.length !== 1) return null;
      return { t: "set", elems: [bound] };
    }
    if (op === "<" || op === "<=") {
      hi = bound;
      ropen = op === "<";
    } else if (op === ">" || op === ">=") {
      lo = bound;
      lopen = op === ">";
    } else return null;
  }
  if (variable?.startsWith("abs(")) {
    // lo ≤ |z| ≤ hi is [-hi, -lo] ∪ [lo, hi].
    if (hi.t === "const") return null;
    return {
      t: "setop",
      op: "union",
      args: [
        { t: "interval", lo: neg(hi), hi: neg(lo), lopen: ropen, ropen: lopen },
        { t: "interval", lo, hi, lopen, ropen },
      ],
    };
  }
  return { t: "interval", lo, hi, lopen, ropen };
}

// Non-strict mode: the prediction's variables are renamed, in order, to the gold's.
function renameSymbols(pred: Node, gold: Node): Node {
  const gs = [...freeSymbols(gold)].sort();
  const ps = [...freeSymbols(pred)].sort();
  if (gs.length !== ps.length || gs.length === 0) return pred;
  const map = new Map(ps.map((p, i) => [p, gs[i]!]));
  const walk = (x: Node): Node => {
    if (x.t === "sym") return { t: "sym", name: map.get(x.name) ?? x.name };
    return mapChildren(x, walk);
  };
  return walk(pred);
}

function mapChildren(x: Node, f: (n: Node) => Node): Node {
  switch (x.t) {
    case "add":
    case "mul":
    case "and":
    case "fn":
    case "setop":
      return { ...x, args: x.args.map(f) } as Node;
    case "pow":
      return { ...x, base: f(x.base), exp: f(x.exp) };
    case "pct":
      return { ...x, arg: f(x.arg) };
    case "rel":
      return { ...x, lhs: f(x.lhs), rhs: f(x.rhs) };
    case "set":
    case "tuple":
      return { ...x, elems: x.elems.map(f) } as Node;
    case "interval":
      return { ...x, lo: f(x.lo), hi: f(x.hi) };
    case "matrix":
      return { ...x, rows: x.rows.map((r) => r.map(f)) };
    default:
      return x;
  }
}
