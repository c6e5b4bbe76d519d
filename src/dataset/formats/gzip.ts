/** gzip and zlib streams (Bun's built-in zlib): a damaged stream is a clear error naming the file. */
import { gunzipSync, inflateSync } from "node:zlib";
import { SourceFormatError } from "./_errors.ts";

/** Decompress a gzip file's bytes. */
export function gunzip(bytes: Uint8Array, name: string): Uint8Array {
  try {
    return new Uint8Array(gunzipSync(bytes));
  } catch (e) {
    throw new SourceFormatError(name, `not a complete gzip stream (${(e as Error).message})`);
  }
}

/** Decompress a zlib (RFC 1950) stream. */
export function zlibInflate(bytes: Uint8Array, name: string): Uint8Array {
  try {
    return new Uint8Array(inflateSync(bytes));
  } catch (e) {
    throw new SourceFormatError(name, `not a complete zlib stream (${(e as Error).message})`);
  }
}
