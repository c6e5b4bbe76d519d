/**
 * Our LaTeX → expression-tree parser (recursive descent). It accepts what answers contain: numbers, fractions,
 * powers, roots, functions, constants, sets, tuples, intervals, relations, matrices and `x = 5`.
 */
import { divide, expandPm, mul, numNode, onlySymbols, orderOf } from "./latex-tree.ts";
import { FUNCS, GREEK, REL, WRAP } from "./latex-vocab.ts";
import { type Node, freeSymbols, int, isRelation, neg } from "./node.ts";
import { ratFromDecimal } from "./rational.ts";
import { ParseError, type Tok, tokenize } from "./tokens.ts";

/** Options the extraction tier passes in. */
export interface ParseOptions {
  /** `i` is the imaginary unit (the text looks complex). */
  complex: boolean;
  /** A plain (non-LaTeX) expression: "3." is a number. */
  plain?: boolean;
}

/** Parses one normalised LaTeX answer; throws ParseError when it is not mathematics we understand. */
export function parseLatex(src: string, opts: ParseOptions): Node {
  if (/^\s*-?\d{1,3}(,\d{3})+(\.\d+)?\s*$/.test(src)) {
    const v = ratFromDecimal(src.replace(/[,\s]/g, ""));
    if (v) return { t: "num", v, float: src.includes(".") };
  }
  const p = new Parser(tokenize(src, 20000, opts.plain === true), opts);
  const node = p.top();
  if (!p.done()) throw new ParseError(`unexpected ${p.peek()?.v}`);
  return node;
}

class Parser {
  private i = 0;
  private depth = 0;
  private absDepth = 0;
  constructor(
    private toks: Tok[],
    private opts: ParseOptions,
  ) {}

  done(): boolean {
    return this.i >= this.toks.length;
  }
  peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  private is(v: string, o = 0): boolean {
    const t = this.toks[this.i + o];
    return t !== undefined && t.k !== "num" && t.k !== "letter" && t.v === v;
  }
  private eat(v: string): boolean {
    if (this.is(v)) {
      this.i++;
      return true;
    }
    return false;
  }
  private expect(v: string): void {
    if (!this.eat(v)) throw new ParseError(`expected ${v} at ${this.peek()?.v ?? "end"}`);
  }
  private enter(): void {
    if (++this.depth > 200) throw new ParseError("nesting too deep");
  }

  /** Top level: elements separated by `,` and `;` form a set (or a set of tuples). */
  top(): Node {
    const groups = this.elementGroups(() => this.done());
    return this.elementsToValue(groups, false);
  }

  private elementGroups(stop: () => boolean): Node[][] {
    const groups: Node[][] = [[]];
    for (;;) {
      if (stop()) break;
      if (this.eat(",")) continue;
      if (this.eat(";")) {
        groups.push([]);
        continue;
      }
      groups[groups.length - 1]!.push(...expandPm(this.relation()));
      if (!stop() && !this.is(",") && !this.is(";")) throw new ParseError(`unexpected ${this.peek()?.v}`);
    }
    const nonEmpty = groups.filter((g) => g.length > 0);
    if (nonEmpty.length === 0) throw new ParseError("empty");
    return nonEmpty;
  }

  private elementsToValue(groups: Node[][], boxedSet: boolean): Node {
    if (groups.length === 1) {
      const g = groups[0]!;
      return g.length === 1 && !boxedSet ? g[0]! : g.length === 1 ? g[0]! : { t: "set", elems: g };
    }
    if (groups.every((g) => g.length === 1)) return { t: "set", elems: groups.map((g) => g[0]!) };
    return { t: "set", elems: groups.map((g) => (g.length === 1 ? g[0]! : { t: "tuple", elems: g })) };
  }

  /** relation := setexpr (relop setexpr)* — chains become an `and` of relations. */
  relation(): Node {
    this.enter();
    let lhs = this.setExpr();
    const rels: Node[] = [];
    for (;;) {
      const t = this.peek();
      if (!t) break;
      let op = REL[t.v];
      if (t.k === "ch" && (t.v === "<" || t.v === ">" || t.v === "!") && this.is("=", 1)) {
        this.i++;
        op = t.v === "<" ? "<=" : t.v === ">" ? ">=" : "!=";
      }
      if (!op || t.k === "num" || t.k === "letter") break;
      this.i++;
      const rhs = this.setExpr();
      if (op === "approx") {
        if (rels.length === 0) lhs = onlySymbols(lhs) ? rhs : lhs;
        continue;
      }
      if (op === "notin") throw new ParseError("notin");
      const left = rels.length > 0 ? (rels[rels.length - 1] as { rhs: Node }).rhs : lhs;
      rels.push({ t: "rel", op: op === "in" ? "=" : op, lhs: left, rhs });
    }
    this.depth--;
    if (rels.length === 0) return lhs;
    return rels.length === 1 ? rels[0]! : { t: "and", args: rels };
  }

  private setExpr(): Node {
    let left = this.additive();
    for (;;) {
      const op = this.is("\\cup") ? "union" : this.is("\\cap") ? "inter" : this.is("\\setminus") ? "minus" : null;
      if (!op) return left;
      this.i++;
      const right = this.additive();
      const asSet = (x: Node): Node => (x.t === "tuple" ? { t: "set", elems: x.elems } : x);
      left = { t: "setop", op, args: [asSet(left), asSet(right)] };
    }
  }

  private additive(): Node {
    const terms: Node[] = [];
    if (this.eat("\\pm")) terms.push({ t: "fn", name: "pm", args: [this.multiplicative()] });
    else if (this.eat("\\mp")) terms.push({ t: "fn", name: "pm", args: [this.multiplicative()] });
    else terms.push(this.unary());
    for (;;) {
      if (this.eat("+")) terms.push(this.multiplicative());
      else if (this.eat("-") || this.eat("−")) terms.push(neg(this.multiplicative()));
      else if (this.eat("\\pm") || this.eat("\\mp")) {
        const rhs = this.multiplicative();
        const lhs = terms.length === 1 ? terms[0]! : { t: "add" as const, args: terms.splice(0) };
        terms.length = 0;
        terms.push({ t: "fn", name: "pm", args: [lhs, rhs] });
      } else break;
    }
    return terms.length === 1 ? terms[0]! : { t: "add", args: terms };
  }

  private unary(): Node {
    if (this.eat("-") || this.eat("−")) return neg(this.unary());
    if (this.eat("+")) return this.unary();
    return this.multiplicative();
  }

  private multiplicative(): Node {
    this.enter();
    let acc = this.signedPostfix();
    for (;;) {
      if (this.eat("*") || this.eat("\\cdot") || this.eat("\\times") || this.eat("×") || this.eat("\\ast")) {
        acc = mul(acc, this.signedPostfix());
      } else if (this.eat("/") || this.eat("\\div") || this.eat("÷") || this.eat(":")) {
        acc = divide(acc, this.signedPostfix());
      } else if (this.startsAtom()) {
        acc = mul(acc, this.postfix());
      } else break;
    }
    this.depth--;
    return acc;
  }

  private signedPostfix(): Node {
    if (this.eat("-")) return neg(this.signedPostfix());
    if (this.eat("+")) return this.signedPostfix();
    return this.postfix();
  }

  private startsAtom(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.k === "num" || t.k === "letter") return true;
    if (t.k === "ch") {
      return t.v === "(" || t.v === "{" || t.v === "[" || (t.v === "|" && this.absDepth === 0) || t.v === "π" || t.v === "∞";
    }
    const v = t.v;
    if (v === "\\right" || v === "\\end" || v === "\\\\" || v === "\\}" || REL[v] !== undefined) return false;
    return (
      v === "\\frac" || v === "\\sqrt" || v === "\\pi" || v === "\\infty" || v === "\\{" || v === "\\text" ||
      v === "\\binom" || v === "\\begin" || v === "\\lfloor" || v === "\\lceil" || v === "\\operatorname" ||
      v === "\\mathrm" || v === "\\sum" || v === "\\prod" || v === "\\int" || v === "\\lim" || v === "\\mbox" ||
      v === "\\langle" || v === "\\|" || v === "\\vert" || v === "\\lvert" || v === "\\imath" || v === "\\e" ||
      GREEK.has(v.slice(1)) || FUNCS.has(v.slice(1)) || WRAP.has(v)
    );
  }

  private postfix(): Node {
    let base = this.atom();
    for (;;) {
      if (this.is("!") && !this.is("=", 1)) {
        this.i++;
        base = { t: "fn", name: "factorial", args: [base] };
      }
      else if (this.is("^")) {
        this.i++;
        if (this.eat("\\circ") || this.eat("°")) continue;
        if (this.is("{") && this.is("\\circ", 1) && this.is("}", 2)) {
          this.i += 3;
          continue;
        }
        if (this.is("\\prime") || this.is("{") && this.is("\\prime", 1)) throw new ParseError("prime");
        const exp = this.scriptArg();
        base = { t: "pow", base, exp };
      } else if (this.is("_")) {
        this.i++;
        const sub = this.subscriptText();
        if (base.t !== "sym") throw new ParseError("subscript on non-symbol");
        base = { t: "sym", name: `${base.name}_${sub}` };
      } else if (this.eat("\\%") || this.eat("%")) base = { t: "pct", arg: base };
      else if (this.eat("°") || this.eat("\\circ") || this.eat("\\degree")) continue;
      else if (this.is("'") && base.t === "sym") {
        this.i++;
        base = { t: "sym", name: `${base.name}'` };
      } else break;
    }
    return base;
  }

  /** The argument of ^ or _: a braced group or one token. */
  private scriptArg(): Node {
    if (this.eat("{")) {
      const v = this.relation();
      this.expect("}");
      return v;
    }
    const t = this.peek();
    if (!t) throw new ParseError("missing exponent");
    if (t.k === "num") {
      this.i++;
      // `2^34` means 2^3 · 4 in LaTeX: one digit only.
      if (t.v.length > 1 && !t.v.includes(".")) {
        this.toks.splice(this.i, 0, { k: "num", v: t.v.slice(1), sp: false });
        return numNode(t.v[0]!);
      }
      return numNode(t.v);
    }
    if (this.eat("-")) return neg(this.scriptArg());
    return this.atom();
  }

  private subscriptText(): string {
    const start = this.i;
    if (this.eat("{")) {
      let d = 1;
      while (!this.done() && d > 0) {
        if (this.is("{")) d++;
        else if (this.is("}")) d--;
        this.i++;
      }
      if (d !== 0) throw new ParseError("unclosed subscript");
      return this.toks.slice(start + 1, this.i - 1).map((t) => t.v).join("");
    }
    const t = this.peek();
    if (!t) throw new ParseError("missing subscript");
    this.i++;
    return t.v;
  }

  private braced(): Node {
    if (this.eat("{")) {
      const v = this.relation();
      this.expect("}");
      return v;
    }
    // \frac12-style single tokens are fixed by normalisation; here one atom is the argument.
    const t = this.peek();
    if (t?.k === "num") {
      this.i++;
      return numNode(t.v);
    }
    return this.atom();
  }

  private rawBraced(): string {
    this.expect("{");
    const start = this.i;
    let d = 1;
    while (!this.done()) {
      if (this.is("{")) d++;
      else if (this.is("}") && --d === 0) break;
      this.i++;
    }
    const text = this.toks.slice(start, this.i).map((t) => (t.sp ? " " : "") + t.v).join("");
    this.expect("}");
    return text.trim();
  }

  atom(): Node {
    const t = this.peek();
    if (!t) throw new ParseError("unexpected end");
    this.enter();
    try {
      return this.atomInner(t);
    } finally {
      this.depth--;
    }
  }

  private atomInner(t: Tok): Node {
    if (t.k === "num") {
      this.i++;
      return numNode(t.v);
    }
    if (t.k === "letter") {
      this.i++;
      return this.letter(t.v);
    }
    const v = t.v;
    if (t.k === "ch") {
      if (v === "(" || v === "[") return this.bracketed(v);
      if (v === "{") {
        this.i++;
        const groups = this.elementGroups(() => this.is("}") || this.done());
        this.expect("}");
        if (groups.length === 1 && groups[0]!.length === 1) return groups[0]![0]!;
        return this.elementsToValue(groups, true);
      }
      if (v === "|") {
        this.i++;
        this.absDepth++;
        const inner = this.additive();
        this.absDepth--;
        this.expect("|");
        return { t: "fn", name: "abs", args: [inner] };
      }
      if (v === "π") {
        this.i++;
        return { t: "const", name: "pi" };
      }
      if (v === "∞") {
        this.i++;
        return { t: "const", name: "oo" };
      }
      throw new ParseError(`unexpected ${v}`);
    }
    this.i++;
    switch (v) {
      case "\\frac":
      case "\\dfrac":
      case "\\tfrac":
      case "\\cfrac": {
        const a = this.braced();
        const b = this.braced();
        return divide(a, b);
      }
      case "\\binom":
      case "\\dbinom":
      case "\\tbinom":
        return { t: "fn", name: "binom", args: [this.braced(), this.braced()] };
      case "\\sqrt": {
        let index: Node | null = null;
        if (this.eat("[")) {
          index = this.additive();
          this.expect("]");
        }
        const arg = this.braced();
        return { t: "pow", base: arg, exp: index ? divide(int(1), index) : divide(int(1), int(2)) };
      }
      case "\\pi":
        return { t: "const", name: "pi" };
      case "\\infty":
        return { t: "const", name: "oo" };
      case "\\imath":
        return { t: "const", name: "I" };
      case "\\{": {
        const groups = this.elementGroups(() => this.is("\\}") || this.done());
        this.expect("\\}");
        return { t: "set", elems: groups.flat() };
      }
      case "\\emptyset":
      case "\\varnothing":
        return { t: "set", elems: [] };
      case "\\text":
      case "\\mbox":
      case "\\mathrm":
      case "\\textrm":
      case "\\textit":
      case "\\textbf":
      case "\\textnormal":
        return this.text(this.rawBraced());
      case "\\operatorname":
        return this.func(this.rawBraced());
      case "\\lfloor":
      case "\\lceil": {
        const inner = this.additive();
        this.expect(v === "\\lfloor" ? "\\rfloor" : "\\rceil");
        return { t: "fn", name: v === "\\lfloor" ? "floor" : "ceil", args: [inner] };
      }
      case "\\|":
      case "\\vert":
      case "\\lvert": {
        const inner = this.additive();
        if (!(this.eat("\\|") || this.eat("\\vert") || this.eat("\\rvert"))) throw new ParseError("unclosed |");
        return { t: "fn", name: "abs", args: [inner] };
      }
      case "\\langle": {
        const groups = this.elementGroups(() => this.is("\\rangle") || this.done());
        this.expect("\\rangle");
        return { t: "tuple", elems: groups.flat() };
      }
      case "\\begin":
        return this.matrix(this.rawBraced());
      case "\\sum":
      case "\\prod":
      case "\\int":
      case "\\lim":
        return this.bigOperator(v.slice(1));
    }
    if (WRAP.has(v)) {
      if (v === "\\textcolor" || v === "\\color") this.rawBraced();
      return this.braced();
    }
    const name = v.slice(1);
    if (GREEK.has(name)) return { t: "sym", name: name.toLowerCase() };
    if (FUNCS.has(name)) return this.func(name);
    throw new ParseError(`unknown command ${v}`);
  }

  private letter(c: string): Node {
    if (c === "e") return { t: "const", name: "E" };
    if (c === "i" && this.opts.complex) return { t: "const", name: "I" };
    if (c === "π") return { t: "const", name: "pi" };
    // f(x), g(x), h(x): an undefined function applied to its arguments.
    if (/^[fghFGH]$/.test(c) && this.is("(") && !this.peek()!.sp) {
      this.i++;
      const groups = this.elementGroups(() => this.is(")") || this.done());
      this.expect(")");
      return { t: "fn", name: `f:${c.toLowerCase()}`, args: groups.flat() };
    }
    return { t: "sym", name: c.toLowerCase() };
  }

  private text(s: string): Node {
    const body = s.trim();
    if (body === "") throw new ParseError("empty text");
    if (/^-?\d+(\.\d+)?$/.test(body)) return numNode(body);
    if (body === "e") return { t: "const", name: "E" };
    if (body === "i" && this.opts.complex) return { t: "const", name: "I" };
    if (/^[a-zA-Z]$/.test(body)) return { t: "sym", name: body.toLowerCase() };
    // A word is one symbol named by it; "(C)" is the letter C.
    const paren = /^\(\s*([a-zA-Z])\s*\)$/.exec(body);
    if (paren) return { t: "sym", name: paren[1]!.toLowerCase() };
    if (/^[a-zA-Z]+$/.test(body)) return { t: "sym", name: body.toLowerCase() };
    return { t: "text", s: body };
  }

  private func(name: string): Node {
    let base: Node | null = null;
    if (name === "log" && this.eat("_")) base = this.scriptArg();
    let power: Node | null = null;
    if (this.is("^")) {
      this.i++;
      power = this.scriptArg();
    }
    let args: Node[];
    if (this.is("(")) {
      this.i++;
      const groups = this.elementGroups(() => this.is(")") || this.done());
      this.expect(")");
      args = groups.flat();
    } else if (this.is("{")) {
      args = [this.braced()];
    } else {
      args = [this.postfix()];
    }
    const n = name === "lg" ? "log10" : name === "ln" ? "log" : name;
    let node: Node = base ? { t: "fn", name: "logb", args: [args[0]!, base] } : { t: "fn", name: n, args };
    if (power) node = { t: "pow", base: node, exp: power };
    return node;
  }

  private bigOperator(name: string): Node {
    let lo: Node = { t: "text", s: "" };
    let hi: Node = { t: "text", s: "" };
    for (let k = 0; k < 2; k++) {
      if (this.is("_")) {
        this.i++;
        lo = this.scriptArg();
      } else if (this.is("^")) {
        this.i++;
        hi = this.scriptArg();
      }
    }
    const body = this.multiplicative();
    return { t: "fn", name, args: [lo, hi, body] };
  }

  private matrix(env: string): Node {
    if (!/^(?:[pbvBV]?matrix|array|smallmatrix)$/.test(env)) throw new ParseError(`environment ${env}`);
    if (env === "array" && this.is("{")) this.rawBraced();
    const rows: Node[][] = [[]];
    for (;;) {
      if (this.done()) throw new ParseError("unclosed matrix");
      if (this.is("\\end")) {
        this.i++;
        this.rawBraced();
        break;
      }
      if (this.eat("&")) continue;
      if (this.eat("\\\\")) {
        rows.push([]);
        continue;
      }
      rows[rows.length - 1]!.push(this.relation());
    }
    const full = rows.filter((r) => r.length > 0);
    if (full.length === 0 || full.some((r) => r.length !== full[0]!.length)) throw new ParseError("ragged matrix");
    return { t: "matrix", rows: full };
  }

  /** `(` or `[` opens a group, a tuple or an interval, closed by `)` or `]`. */
  private bracketed(open: string): Node {
    this.i++;
    const elems: Node[] = [];
    for (;;) {
      if (this.done()) throw new ParseError("unclosed bracket");
      if (this.is(")") || this.is("]")) break;
      elems.push(...expandPm(this.relation()));
      if (this.eat(",") || this.eat(";")) continue;
      if (!this.is(")") && !this.is("]")) throw new ParseError(`unexpected ${this.peek()?.v}`);
    }
    const close = this.peek()!.v;
    this.i++;
    if (elems.length === 0) throw new ParseError("empty brackets");
    if (elems.length === 1) {
      if (open === "(" && close === ")") return elems[0]!;
      if (open === "[" && close === "]") return elems[0]!;
      throw new ParseError("half-open single element");
    }
    const symbolic = elems.some((e) => freeSymbols(e).size > 0);
    if (elems.length === 2 && !symbolic && !isRelation(elems[0]!) && !isRelation(elems[1]!)) {
      const lopen = open === "(";
      const ropen = close === ")";
      const order = orderOf(elems[0]!, elems[1]!);
      // An "interval" whose ends are out of order is a pair, as upstream reads it.
      if (order !== null && ((lopen && ropen && order >= 0) || (!lopen && !ropen && order > 0))) {
        return { t: "tuple", elems };
      }
      if (open === "[" && close === "]" && order === null) return { t: "tuple", elems };
      return { t: "interval", lo: elems[0]!, hi: elems[1]!, lopen, ropen };
    }
    if (open === "(" && close === ")") return { t: "tuple", elems };
    if (open === "[" && close === "]") return { t: "tuple", elems };
    throw new ParseError("mismatched brackets");
  }
}

