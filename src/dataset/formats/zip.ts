/**
 * A small zip reader (stored and deflated entries, via the central directory; no zip64, no encryption).
 * Entry names are read as the zip format and Python's `zipfile` read them: UTF-8 when the entry's
 * general-purpose flag bit 11 says so, else CP437 (so a UTF-8 name written without the flag comes
 * out as the same mojibake upstream's scripts match against, e.g. `’` → `ΓÇÖ`).
 */
import { inflateRawSync } from "node:zlib";
import { SourceFormatError } from "./_errors.ts";
import type { TarEntry } from "./tar.ts";

const dec = new TextDecoder();

// CP437's upper half (0x80–0xFF); the lower half is ASCII.
const CP437_HIGH =
  "\u00c7\u00fc\u00e9\u00e2\u00e4\u00e0\u00e5\u00e7\u00ea\u00eb\u00e8\u00ef\u00ee\u00ec\u00c4\u00c5\u00c9\u00e6\u00c6\u00f4\u00f6\u00f2\u00fb\u00f9\u00ff\u00d6\u00dc\u00a2\u00a3\u00a5\u20a7\u0192" +
  "\u00e1\u00ed\u00f3\u00fa\u00f1\u00d1\u00aa\u00ba\u00bf\u2310\u00ac\u00bd\u00bc\u00a1\u00ab\u00bb\u2591\u2592\u2593\u2502\u2524\u2561\u2562\u2556\u2555\u2563\u2551\u2557\u255d\u255c\u255b\u2510" +
  "\u2514\u2534\u252c\u251c\u2500\u253c\u255e\u255f\u255a\u2554\u2569\u2566\u2560\u2550\u256c\u2567\u2568\u2564\u2565\u2559\u2558\u2552\u2553\u256b\u256a\u2518\u250c\u2588\u2584\u258c\u2590\u2580" +
  "\u03b1\u00df\u0393\u03c0\u03a3\u03c3\u00b5\u03c4\u03a6\u0398\u03a9\u03b4\u221e\u03c6\u03b5\u2229\u2261\u00b1\u2265\u2264\u2320\u2321\u00f7\u2248\u00b0\u2219\u00b7\u221a\u207f\u00b2\u25a0\u00a0";

/** Bytes as CP437 text. */
function cp437(b: Uint8Array): string {
  let s = "";
  for (const c of b) s += c < 0x80 ? String.fromCharCode(c) : CP437_HIGH[c - 0x80]!;
  return s;
}

/** Every file of a zip archive (directories skipped), in central-directory order; `keep` picks entries before they inflate. */
export function readZip(bytes: Uint8Array, name: string, keep: (path: string) => boolean = () => true): TarEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new SourceFormatError(name, "not a zip archive, or a truncated one (no end-of-central-directory record)");
  const count = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  if (p === 0xffffffff || count === 0xffff) throw new SourceFormatError(name, "zip64 archives are not supported", "repack the archive without zip64");
  const out: TarEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== 0x02014b50) throw new SourceFormatError(name, "damaged zip central directory");
    const method = view.getUint16(p + 10, true);
    const flags = view.getUint16(p + 8, true);
    const csize = view.getUint32(p + 20, true);
    const usize = view.getUint32(p + 24, true);
    const nlen = view.getUint16(p + 28, true);
    const xlen = view.getUint16(p + 30, true);
    const clen = view.getUint16(p + 32, true);
    const local = view.getUint32(p + 42, true);
    const rawName = bytes.subarray(p + 46, p + 46 + nlen);
    const path = (flags & 0x800) !== 0 ? dec.decode(rawName) : cp437(rawName);
    p += 46 + nlen + xlen + clen;
    if (path.endsWith("/") || !keep(path)) continue;
    if ((flags & 1) !== 0) throw new SourceFormatError(name, `entry '${path}' is encrypted`);
    if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) throw new SourceFormatError(name, `damaged local header of '${path}'`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + csize > bytes.length) throw new SourceFormatError(name, `entry '${path}' is truncated`);
    const raw = bytes.subarray(start, start + csize);
    let data: Uint8Array;
    if (method === 0) data = raw;
    else if (method === 8) {
      try {
        data = new Uint8Array(inflateRawSync(raw));
      } catch (e) {
        throw new SourceFormatError(name, `entry '${path}' does not inflate (${(e as Error).message})`);
      }
    } else throw new SourceFormatError(name, `entry '${path}' uses compression method ${method} (only stored and deflate are read)`);
    if (data.length !== usize) throw new SourceFormatError(name, `entry '${path}' has ${data.length} bytes, the directory says ${usize}`);
    out.push({ path, data });
  }
  return out;
}
