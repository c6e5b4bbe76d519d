/**
 * A deliberately tiny unpickler: it accepts only a pickle whose whole content is one `str`
 * (LiveCodeBench's private tests: base64 → zlib → pickle.dumps(json_text)) and refuses every
 * other opcode, so no pickle can construct objects or call anything.
 */
import { SourceFormatError } from "./_errors.ts";
import { zlibInflate } from "./gzip.ts";

const dec = new TextDecoder("utf-8", { fatal: true });

/** The `str` inside a pickle (protocols 1–5); anything else is refused. */
export function unpickleStr(bytes: Uint8Array, where: string): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let p = 0;
  let value: string | undefined;
  const need = (n: number) => {
    if (p + n > bytes.length) throw new SourceFormatError(where, "the pickle is truncated");
  };
  const take = (n: number): string => {
    need(n);
    const s = dec.decode(bytes.subarray(p, p + n));
    p += n;
    return s;
  };
  while (p < bytes.length) {
    const op = bytes[p++]!;
    if (op === 0x80) {
      need(1);
      p++; // PROTO n
    } else if (op === 0x95) {
      need(8);
      p += 8; // FRAME size
    } else if (op === 0x8c && value === undefined) {
      need(1);
      value = take(bytes[p++]!); // SHORT_BINUNICODE
    } else if (op === 0x58 && value === undefined) {
      need(4);
      const n = view.getUint32(p, true);
      p += 4;
      value = take(n); // BINUNICODE
    } else if (op === 0x8d && value === undefined) {
      need(8);
      const n = Number(view.getBigUint64(p, true));
      p += 8;
      value = take(n); // BINUNICODE8
    } else if (op === 0x94 && value !== undefined) {
      // MEMOIZE: harmless bookkeeping after the string
    } else if ((op === 0x71 || op === 0x72) && value !== undefined) {
      need(op === 0x71 ? 1 : 4);
      p += op === 0x71 ? 1 : 4; // BINPUT / LONG_BINPUT
    } else if (op === 0x2e && value !== undefined) {
      if (p !== bytes.length) throw new SourceFormatError(where, "trailing bytes after the pickle's STOP");
      return value;
    } else {
      throw new SourceFormatError(where, `refused pickle: opcode 0x${op.toString(16).padStart(2, "0")} at byte ${p - 1}; only a pickled str is accepted`, "this field must be a pickled string; gym never unpickles objects");
    }
  }
  throw new SourceFormatError(where, "the pickle has no STOP opcode (truncated)");
}

/** base64 → zlib → pickled str, the LiveCodeBench private-test encoding. */
export function decodeCompressedPickledStr(b64: string, where: string): string {
  const raw = Uint8Array.from(Buffer.from(b64, "base64"));
  return unpickleStr(zlibInflate(raw, where), where);
}
