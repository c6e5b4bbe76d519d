/**
 * Where and why a JSON body is invalid, worded like Python's `json` module: FastAPI's 422
 * `json_invalid` item carries `loc: ["body", <pos>]` and `ctx.error` (runtime.md §5.2).
 */

/** A Python-style JSON decode error. */
export interface JsonDecodeError {
  pos: number;
  msg: string;
}

class Fail extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {
    super(msg);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const LITERALS = ["true", "false", "null", "NaN", "Infinity", "-Infinity"];

/** Scan `text` and return the first error Python's `json.loads` would report, or undefined if it parses. */
export function pythonJsonError(text: string): JsonDecodeError | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const str = () => {
    const start = i++;
    for (;;) {
      if (i >= text.length) throw new Fail("Unterminated string starting at", start);
      const c = text.charCodeAt(i);
      if (c === 0x22) return void i++;
      if (c < 0x20) throw new Fail("Invalid control character at", i);
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Fail("Invalid \\uXXXX escape", i + 1);
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else throw new Fail("Invalid \\escape", i);
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '"') return str();
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        if (text[i] !== '"') throw new Fail("Expecting property name enclosed in double quotes", i);
        str();
        ws();
        if (text[i] !== ":") throw new Fail("Expecting ':' delimiter", i);
        i++;
        value();
        ws();
        if (text[i] === "}") return void i++;
        if (text[i] !== ",") throw new Fail("Expecting ',' delimiter", i);
        i++;
        ws();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === "]") return void i++;
        if (text[i] !== ",") throw new Fail("Expecting ',' delimiter", i);
        i++;
      }
    }
    for (const lit of LITERALS) if (text.startsWith(lit, i)) return void (i += lit.length);
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) return void (i += m[0].length);
    throw new Fail("Expecting value", i);
  };
  try {
    value();
    ws();
    if (i < text.length) throw new Fail("Extra data", i);
    return undefined;
  } catch (e) {
    if (e instanceof Fail) return { pos: e.pos, msg: e.msg };
    // Nesting deep enough to exhaust the stack: still a decode error, not a crash.
    return { pos: 0, msg: "Expecting value" };
  }
}
