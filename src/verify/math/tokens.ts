/** The LaTeX tokenizer: numbers, commands, letters and single characters, spacing dropped. */

/** One token. */
export interface Tok {
  k: "num" | "cmd" | "letter" | "ch";
  v: string;
  /** Whitespace came right before this token. */
  sp: boolean;
}

/** A parse failure: the extractor moves on to the next candidate. */
export class ParseError extends Error {
  override name = "ParseError";
}

// Spacing and sizing commands carry no meaning for the value.
const SKIP = new Set([
  "\\,", "\\;", "\\:", "\\!", "\\ ", "\\quad", "\\qquad", "\\displaystyle", "\\textstyle", "\\left", "\\right",
  "\\big", "\\Big", "\\bigg", "\\Bigg", "\\bigl", "\\bigr", "\\Bigl", "\\Bigr", "\\biggl", "\\biggr", "\\Biggl",
  "\\Biggr", "\\middle", "\\limits", "\\nolimits", "\\mleft", "\\mright", "\\hline", "\\medspace", "\\thinspace",
  "\\thickspace", "\\enspace", "\\negthinspace", "\\ldots", "\\cdots", "\\dots", "\\vdots", "\\ddots", "\\smallskip",
  "\\nonumber", "\\notag", "\\scriptstyle", "\\phantom",
]);

/** Splits LaTeX into tokens; throws ParseError past `maxTokens` (bounded work on huge answers). */
export function tokenize(src: string, maxTokens = 20000, plain = false): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  let sp = false;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      sp = true;
      i++;
      continue;
    }
    let tok: Tok;
    if (c === "\\") {
      const m = /^\\(?:[a-zA-Z]+|.)/s.exec(src.slice(i, i + 40));
      let v = m ? m[0] : "\\";
      // `\quadx` is `\quad x`: split spacing commands glued to a letter.
      const glued = /^\\(q?quad)(?=[a-zA-Z])/.exec(v);
      if (glued) v = `\\${glued[1]}`;
      i += v.length;
      // Visual brackets \( \) \[ \] group like ( ) [ ].
      if (v === "\\(" || v === "\\)" || v === "\\[" || v === "\\]") {
        out.push({ k: "ch", v: v[1]!, sp });
        sp = false;
        continue;
      }
      if (SKIP.has(v)) {
        sp = true;
        continue;
      }
      tok = { k: "cmd", v, sp };
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      // Plain expressions (Python's parser) also take "3." as a float.
      const m = (plain ? /^(?:\d+(?:\.\d*)?|\.\d+)/ : /^(?:\d+(?:\.\d+)?|\.\d+)/).exec(src.slice(i, i + 400))!;
      if (m[0].length >= 400) throw new ParseError("number too long");
      tok = { k: "num", v: m[0], sp };
      i += m[0].length;
    } else if (/\p{L}/u.test(c)) {
      tok = { k: "letter", v: c, sp };
      i++;
    } else {
      tok = { k: "ch", v: c, sp };
      i++;
    }
    out.push(tok);
    sp = false;
    if (out.length > maxTokens) throw new ParseError("too many tokens");
  }
  return out;
}
