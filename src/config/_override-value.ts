/**
 * Parser for the value part of a Hydra 1.3 override: primitives with Hydra's type inference,
 * quoted strings, `[lists]`, `{dicts}` (nested), `${…}` kept verbatim. A top-level comma is a
 * sweep and Hydra functions are rejected; both surface as `ValueSyntaxError`.
 */
import { lexValue, LexError, type Tok, type TokKind } from "./_override-lexer.ts";

/** Why a value did not parse; `sweep` marks the ambiguous top-level comma case. */
export class ValueSyntaxError extends Error {
  constructor(
    message: string,
    readonly sweep = false,
  ) {
    super(message);
    this.name = "ValueSyntaxError";
  }
}

const PRIMITIVE: ReadonlySet<TokKind> = new Set(["ID", "NULL", "INT", "FLOAT", "BOOL", "INTERPOLATION", "UNQUOTED_CHAR", "COLON", "ESC", "WS"]);
const DICT_KEY: ReadonlySet<TokKind> = new Set(["ID", "NULL", "INT", "FLOAT", "BOOL", "UNQUOTED_CHAR", "ESC", "WS"]);

/** Python's int()/float() on Hydra's literal text (underscores allowed). */
function toNumber(kind: "INT" | "FLOAT", text: string): number {
  const t = text.replaceAll("_", "").toLowerCase();
  if (kind === "FLOAT") {
    if (t.endsWith("inf")) return t.startsWith("-") ? -Infinity : Infinity;
    if (t.endsWith("nan")) return NaN;
  }
  return Number(t);
}

/** Un-escape an ESC token: `\,` → `,`, `\\` → `\` (every other character). */
function unescape(text: string): string {
  let out = "";
  for (let i = 1; i < text.length; i += 2) out += text[i];
  return out;
}

function describe(t: Tok | undefined): string {
  return t === undefined ? "<EOF>" : `'${t.text}'`;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }

  private fail(expecting: string): never {
    const t = this.peek();
    throw new ValueSyntaxError(`mismatched input ${describe(t)}${t ? ` at column ${t.pos + 1}` : ""} expecting ${expecting}`);
  }

  /** value: element (COMMA element)* — more than one element is a sweep. */
  value(): unknown {
    const first = this.element();
    // Lenient where Hydra is not: whitespace after a closing quote/bracket at the very end.
    if (this.peek()?.kind === "WS" && this.i === this.toks.length - 1) this.i++;
    if (this.peek()?.kind === "COMMA") throw new ValueSyntaxError("ambiguous top-level comma", true);
    if (this.peek() !== undefined) this.fail("<EOF>");
    return first;
  }

  private element(): unknown {
    const t = this.peek();
    if (t === undefined) this.fail("a value");
    if (t.kind === "BRACKET_OPEN") return this.list();
    if (t.kind === "BRACE_OPEN") return this.dict();
    if (t.kind === "QUOTED") {
      this.i++;
      return t.value;
    }
    if (t.kind === "ID" && this.toks[this.i + 1]?.kind === "POPEN") {
      throw new ValueSyntaxError(`Hydra functions such as '${t.text}(...)' are not supported by gym; quote the value to pass it as a string`);
    }
    if (!PRIMITIVE.has(t.kind)) this.fail("a value");
    return this.primitive();
  }

  private primitive(): unknown {
    const start = this.i;
    while (this.peek() !== undefined && PRIMITIVE.has(this.peek()!.kind)) this.i++;
    const next = this.peek();
    if (next?.kind === "QUOTED" || next?.kind === "POPEN") this.fail("',' or the end of the value");
    let parts = this.toks.slice(start, this.i);
    if (parts[0]?.kind === "WS") parts = parts.slice(1);
    if (parts.length > 0 && parts[parts.length - 1]!.kind === "WS") parts = parts.slice(0, -1);
    if (parts.length === 0) throw new ValueSyntaxError("a value made only of whitespace is not allowed");
    if (parts.length > 1) return parts.map((p) => (p.kind === "ESC" ? unescape(p.text) : p.text)).join("");
    const p = parts[0]!;
    switch (p.kind) {
      case "INT":
      case "FLOAT":
        return toNumber(p.kind, p.text);
      case "NULL":
        return null;
      case "BOOL":
        return p.text.toLowerCase() === "true";
      case "ESC":
        return unescape(p.text);
      default:
        return p.text;
    }
  }

  private list(): unknown[] {
    this.i++; // [
    const out: unknown[] = [];
    if (this.peek()?.kind === "BRACKET_CLOSE") {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.element());
      const t = this.peek();
      if (t?.kind === "COMMA") {
        this.i++;
        continue;
      }
      if (t?.kind === "BRACKET_CLOSE") {
        this.i++;
        return out;
      }
      this.fail("',' or ']'");
    }
  }

  private dict(): Record<string, unknown> {
    this.i++; // {
    const out: Record<string, unknown> = {};
    if (this.peek()?.kind === "BRACE_CLOSE") {
      this.i++;
      return out;
    }
    for (;;) {
      const key = this.dictKey();
      if (this.peek()?.kind !== "COLON") this.fail("':'");
      this.i++;
      out[key] = this.element();
      const t = this.peek();
      if (t?.kind === "COMMA") {
        this.i++;
        continue;
      }
      if (t?.kind === "BRACE_CLOSE") {
        this.i++;
        return out;
      }
      this.fail("',' or '}'");
    }
  }

  private dictKey(): string {
    const start = this.i;
    while (this.peek() !== undefined && DICT_KEY.has(this.peek()!.kind)) this.i++;
    const text = this.toks
      .slice(start, this.i)
      .map((p) => (p.kind === "ESC" ? unescape(p.text) : p.text))
      .join("")
      .trim();
    if (text === "") this.fail("a dictionary key");
    return text;
  }
}

/** Parse an override value (the text after `=`); throws ValueSyntaxError. */
export function parseOverrideValue(src: string): unknown {
  let toks: Tok[];
  try {
    toks = lexValue(src);
  } catch (e) {
    if (e instanceof LexError) throw new ValueSyntaxError(e.message);
    throw e;
  }
  // `EQUAL: '=' WS?` swallows spaces right after `=`.
  if (toks[0]?.kind === "WS") toks = toks.slice(1);
  return new Parser(toks).value();
}
