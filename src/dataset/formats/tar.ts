/**
 * A small tar reader and writer (POSIX ustar, with GNU long names and pax `path` records when
 * reading): enough for the MMLU `data.tar` source and for gym's own benchmark bundles.
 */
import { SourceFormatError } from "./_errors.ts";

/** One regular file of an archive. */
export interface TarEntry {
  path: string;
  data: Uint8Array;
}

const BLOCK = 512;
const dec = new TextDecoder();
const enc = new TextEncoder();

function cstr(b: Uint8Array, off: number, len: number): string {
  const s = b.subarray(off, off + len);
  const z = s.indexOf(0);
  return dec.decode(z < 0 ? s : s.subarray(0, z));
}

function octal(b: Uint8Array, off: number, len: number): number {
  // GNU base-256 for sizes ≥ 8 GiB: high bit set in the first byte.
  if ((b[off]! & 0x80) !== 0) {
    let n = 0;
    for (let i = 1; i < len; i++) n = n * 256 + b[off + i]!;
    return n;
  }
  const s = cstr(b, off, len).trim();
  return s === "" ? 0 : parseInt(s, 8);
}

function paxPath(data: Uint8Array): string | undefined {
  let text = dec.decode(data);
  while (text.length > 0) {
    const sp = text.indexOf(" ");
    const len = Number(text.slice(0, sp));
    if (!Number.isInteger(len) || len <= 0) return undefined;
    const rec = text.slice(sp + 1, len - 1);
    const eq = rec.indexOf("=");
    if (rec.slice(0, eq) === "path") return rec.slice(eq + 1);
    text = text.slice(len);
  }
  return undefined;
}

/** Every regular file of a tar archive, in archive order. A truncated archive is an error naming `name`. */
export function readTar(bytes: Uint8Array, name: string): TarEntry[] {
  const out: TarEntry[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + BLOCK <= bytes.length) {
    const h = bytes.subarray(off, off + BLOCK);
    if (h.every((x) => x === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== octal(h, 148, 8)) throw new SourceFormatError(name, `not a tar archive (bad header checksum at byte ${off})`);
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 48);
    const prefix = cstr(h, 345, 155);
    const base = cstr(h, 0, 100);
    const start = off + BLOCK;
    if (start + size > bytes.length) throw new SourceFormatError(name, `the tar archive is truncated (entry '${longName ?? base}' needs ${size} bytes, ${bytes.length - start} left)`);
    const data = bytes.subarray(start, start + size);
    off = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L") {
      longName = cstr(data, 0, data.length);
      continue;
    }
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === "g") continue;
    const path = longName ?? (prefix ? `${prefix}/${base}` : base);
    longName = undefined;
    if (type === "0" || type === "\0" || type === "7") out.push({ path, data });
  }
  return out;
}

function header(path: string, size: number, type: string): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (s: string, off: number, len: number) => h.set(enc.encode(s).subarray(0, len), off);
  const num = (n: number, off: number, len: number) => put(`${n.toString(8).padStart(len - 1, "0")}\0`, off, len);
  put(path, 0, 100);
  num(0o644, 100, 8);
  num(0, 108, 8);
  num(0, 116, 8);
  num(size, 124, 12);
  num(0, 136, 12); // mtime 0: the same inputs give the same archive bytes
  h.fill(32, 148, 156);
  put(type, 156, 1);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  let sum = 0;
  for (const x of h) sum += x;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
}

function padded(data: Uint8Array): Uint8Array[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, new Uint8Array(BLOCK - rest)];
}

/** A tar archive of `entries` (pax records carry names longer than 100 bytes). Deterministic bytes. */
export function writeTar(entries: TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (enc.encode(e.path).length > 100) {
      const rec = (n: number) => `${n} path=${e.path}\n`;
      let len = enc.encode(rec(0)).length;
      while (enc.encode(rec(len)).length !== len) len = enc.encode(rec(len)).length;
      const pax = enc.encode(rec(len));
      parts.push(header("././@PaxHeader", pax.length, "x"), ...padded(pax));
    }
    parts.push(header(e.path, e.data.length, "0"), ...padded(e.data));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
