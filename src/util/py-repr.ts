/**
 * Python `repr()` renderings that leak onto the wire: upstream 500 bodies quote `repr(e)` of an
 * exception and `bytes` reprs of inner-server bodies (runtime.md §5.2), and clients may match them.
 */

/** Python's quote choice: single quotes unless the text has `'` and no `"`. */
function quoteFor(hasSingle: boolean, hasDouble: boolean): string {
  return hasSingle && !hasDouble ? '"' : "'";
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hexEscape(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

/** `repr(s)` of a Python `str`. */
export function pyStrRepr(s: string): string {
  const q = quoteFor(s.includes("'"), s.includes('"'));
  let out = q;
  for (const ch of s) {
    if (ch === "\\") out += "\\\\";
    else if (ch === q) out += `\\${q}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && NON_PRINTABLE.test(ch)) out += hexEscape(ch.codePointAt(0)!);
    else out += ch;
  }
  return out + q;
}

/** `repr(b)` of a Python `bytes` (e.g. `b'{"detail":"x"}'`). */
export function pyBytesRepr(bytes: Uint8Array): string {
  const q = quoteFor(bytes.includes(0x27), bytes.includes(0x22));
  let out = `b${q}`;
  for (const b of bytes) {
    if (b === 0x5c) out += "\\\\";
    else if (b === q.charCodeAt(0)) out += `\\${q}`;
    else if (b === 0x0a) out += "\\n";
    else if (b === 0x0d) out += "\\r";
    else if (b === 0x09) out += "\\t";
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, "0")}`;
    else out += String.fromCharCode(b);
  }
  return out + q;
}

/** `repr(e)` shape for a thrown value: `Name('message')` (runtime.md §5.2 spec default). */
export function pyExceptionRepr(err: Error): string {
  const name = err.name || "Error";
  return err.message === "" ? `${name}()` : `${name}(${pyStrRepr(err.message)})`;
}
