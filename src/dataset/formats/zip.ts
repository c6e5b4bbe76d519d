/** A small zip reader (stored and deflated entries, via the central directory; no zip64, no encryption). */
import { inflateRawSync } from "node:zlib";
import { SourceFormatError } from "./_errors.ts";
import type { TarEntry } from "./tar.ts";

const dec = new TextDecoder();

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
    const path = dec.decode(bytes.subarray(p + 46, p + 46 + nlen));
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
