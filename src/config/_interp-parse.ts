/**
 * Parser for OmegaConf 2.3 interpolation strings: `${a.b}`, `${..x}`, `${a.${b}}`,
 * `${resolver:arg,…}` with typed arguments (lists, dicts, quoted strings, nested
 * interpolations), and the top-level escapes (`\${` literal, `\\${` backslash + value).
 */
import { BOOL_RE, FLOAT_RE, INT_RE, NULL_RE } from "./_override-lexer.ts";

/** A piece of text: literal characters or an interpolation. */
export type Part = { t: "str"; s: string } | { t: "inter"; inter: Inter };

/** `${key}` (key pieces concatenate to a dotted key text) or `${name:args}`. */
export type Inter =
  | { t: "node"; key: Part[]; raw: string }
  | { t: "resolver"; name: Part[]; args: Elem[]; raw: string };

/** A resolver argument (OmegaConf "element"). */
export type Elem =
  | { t: "prim"; parts: Part[]; escaped: boolean }
  | { t: "quoted"; parts: Part[] }
  | { t: "list"; items: Elem[] }
  | { t: "dict"; entries: [string, Elem][] };

/** A malformed interpolation; `pos` is the offset in the parsed string. */
export class InterpSyntaxError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
    this.name = "InterpSyntaxError";
  }
}

// Characters that end an interpolation key segment (OmegaConf's INTER_KEY excludes them).
const KEY_STOP = new Set(["\\", "{", "}", "(", ")", "[", "]", ":", ".", " ", "\t", "'", '"']);
// Escapes of OmegaConf's value mode: the backslash is dropped.
const VALUE_ESC = new Set(["\\", "(", ")", "[", "]", "{", "}", ":", "=", ",", " ", "\t"]);

class P {
  i = 0;
  constructor(readonly s: string) {}

  err(msg: string): never {
    throw new InterpSyntaxError(`${msg} at position ${this.i + 1} of '${this.s}'`, this.i);
  }

  ws(): void {
    while (this.s[this.i] === " " || this.s[this.i] === "\t") this.i++;
  }

  at(str: string): boolean {
    return this.s.startsWith(str, this.i);
  }

  /** Top-level text until the end of the string. */
  text(): Part[] {
    const parts: Part[] = [];
    let buf = "";
    const flush = () => {
      if (buf !== "") parts.push({ t: "str", s: buf });
      buf = "";
    };
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === "\\") {
        let j = this.i;
        while (this.s[j] === "\\") j++;
        const n = j - this.i;
        if (this.s.startsWith("${", j)) {
          // An odd run escapes the `${`; the even part is halved (`\\` → `\`).
          buf += "\\".repeat(Math.floor(n / 2));
          if (n % 2 === 1) {
            buf += "${";
            this.i = j + 2;
          } else this.i = j;
        } else {
          buf += this.s.slice(this.i, j);
          this.i = j;
        }
        continue;
      }
      if (this.at("${")) {
        flush();
        parts.push({ t: "inter", inter: this.inter() });
        continue;
      }
      buf += c;
      this.i++;
    }
    flush();
    return parts;
  }

  /** One `${…}` starting at the cursor. */
  inter(): Inter {
    const start = this.i;
    this.i += 2;
    this.ws();
    const key: Part[] = [];
    for (;;) {
      if (this.i >= this.s.length) this.err("unterminated interpolation");
      if (this.at("${")) {
        key.push({ t: "inter", inter: this.inter() });
        continue;
      }
      const c = this.s[this.i]!;
      if (c === "." || c === "[" || c === "]") {
        key.push({ t: "str", s: c });
        this.i++;
        continue;
      }
      if (c === " " || c === "\t") {
        this.ws();
        if (this.s[this.i] !== "}" && this.s[this.i] !== ":") this.err("unexpected whitespace in interpolation key");
        continue;
      }
      if (c === "}") {
        this.i++;
        if (key.length === 0) this.err("empty interpolation");
        return { t: "node", key, raw: this.s.slice(start, this.i) };
      }
      if (c === ":") {
        this.i++;
        this.ws();
        if (key.length === 0) this.err("missing resolver name");
        const args = this.sequence("}");
        this.i++; // }
        return { t: "resolver", name: key, args, raw: this.s.slice(start, this.i) };
      }
      if (KEY_STOP.has(c)) this.err(`unexpected '${c}' in interpolation key`);
      let j = this.i;
      while (j < this.s.length && !KEY_STOP.has(this.s[j]!) && !this.s.startsWith("${", j)) j++;
      key.push({ t: "str", s: this.s.slice(this.i, j) });
      this.i = j;
    }
  }

  /** Comma-separated elements up to (not including) `close`; empty elements are "". */
  sequence(close: "}" | "]"): Elem[] {
    const out: Elem[] = [];
    this.ws();
    if (this.s[this.i] === close) return out;
    for (;;) {
      this.ws();
      const c = this.s[this.i];
      if (c === "," || c === close) out.push({ t: "prim", parts: [{ t: "str", s: "" }], escaped: true });
      else out.push(this.element(close));
      this.ws();
      const d = this.s[this.i];
      if (d === ",") {
        this.i++;
        continue;
      }
      if (d === close) return out;
      this.err(d === undefined ? `missing '${close}'` : `unexpected '${d}'`);
    }
  }

  element(close: "}" | "]"): Elem {
    this.ws();
    const c = this.s[this.i];
    if (c === "[") {
      this.i++;
      const items = this.sequence("]");
      this.i++;
      return { t: "list", items };
    }
    if (c === "{") return this.dict();
    if (c === "'" || c === '"') return this.quoted(c);
    return this.prim(close);
  }

  dict(): Elem {
    this.i++; // {
    const entries: [string, Elem][] = [];
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return { t: "dict", entries };
    }
    for (;;) {
      this.ws();
      let k = "";
      while (this.i < this.s.length && !":,{}[]'\"".includes(this.s[this.i]!)) {
        if (this.s[this.i] === "\\" && VALUE_ESC.has(this.s[this.i + 1] ?? "")) {
          k += this.s[this.i + 1];
          this.i += 2;
        } else k += this.s[this.i++];
      }
      if (this.s[this.i] !== ":" || k.trim() === "") this.err("expected 'key: value' in dictionary");
      this.i++;
      entries.push([k.trim(), this.element("}")]);
      this.ws();
      const d = this.s[this.i];
      this.i++;
      if (d === ",") continue;
      if (d === "}") return { t: "dict", entries };
      this.i--;
      this.err("expected ',' or '}' in dictionary");
    }
  }

  quoted(q: string): Elem {
    this.i++;
    const parts: Part[] = [];
    let buf = "";
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === q) {
        this.i++;
        if (buf !== "") parts.push({ t: "str", s: buf });
        return { t: "quoted", parts };
      }
      if (c === "\\" && (this.s[this.i + 1] === q || this.s[this.i + 1] === "\\")) {
        buf += this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (c === "\\" && this.s.startsWith("${", this.i + 1)) {
        buf += "${";
        this.i += 3;
        continue;
      }
      if (this.at("${")) {
        if (buf !== "") parts.push({ t: "str", s: buf });
        buf = "";
        parts.push({ t: "inter", inter: this.inter() });
        continue;
      }
      buf += c;
      this.i++;
    }
    this.err(`unterminated quoted string`);
  }

  prim(close: "}" | "]"): Elem {
    const parts: Part[] = [];
    let buf = "";
    let escaped = false;
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === "," || c === close) break;
      if (this.at("${")) {
        if (buf !== "") parts.push({ t: "str", s: buf });
        buf = "";
        parts.push({ t: "inter", inter: this.inter() });
        continue;
      }
      if (c === "\\" && VALUE_ESC.has(this.s[this.i + 1] ?? "")) {
        buf += this.s[this.i + 1];
        escaped = true;
        this.i += 2;
        continue;
      }
      if ("[]{}'\"".includes(c)) this.err(`unexpected '${c}' in a resolver argument (quote the argument)`);
      buf += c;
      this.i++;
    }
    if (buf !== "") parts.push({ t: "str", s: buf });
    // Leading and trailing whitespace is not part of a primitive.
    const first = parts[0];
    if (first?.t === "str") first.s = first.s.replace(/^[ \t]+/, "");
    const last = parts[parts.length - 1];
    if (last?.t === "str") last.s = last.s.replace(/[ \t]+$/, "");
    return { t: "prim", parts: parts.filter((p) => p.t !== "str" || p.s !== ""), escaped };
  }
}

/** Parse a config string that contains `${`; throws InterpSyntaxError. */
export function parseInterpolated(s: string): Part[] {
  return new P(s).text();
}

/** Parse a whole string as one resolver-style element (for `oc.decode`). */
export function parseElement(s: string): Elem {
  const p = new P(s);
  const e = p.element("}");
  p.ws();
  if (p.i < s.length) p.err("unexpected trailing characters");
  return e;
}

/** Hydra/OmegaConf typing of an unquoted literal: int, float, bool, null, else the string. */
export function typedLiteral(text: string): unknown {
  if (INT_RE.test(text)) return Number(text.replaceAll("_", ""));
  if (FLOAT_RE.test(text)) {
    const t = text.replaceAll("_", "").toLowerCase();
    if (t.endsWith("inf")) return t.startsWith("-") ? -Infinity : Infinity;
    if (t.endsWith("nan")) return NaN;
    return Number(t);
  }
  if (BOOL_RE.test(text)) return text.toLowerCase() === "true";
  if (NULL_RE.test(text)) return null;
  return text;
}
