/**
 * Parquet reader: hyparquet (pure JS, no native code, works in the compiled binary) with
 * hyparquet-compressors for gzip/brotli/zstd/lz4 pages (snappy is built into hyparquet).
 */
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { SourceFormatError } from "./_errors.ts";

const MAGIC = "PAR1";

/** Every row of a parquet file as a plain object (BigInt columns become numbers when they fit). */
export async function readParquet(bytes: Uint8Array, name: string): Promise<Record<string, unknown>[]> {
  const head = new TextDecoder().decode(bytes.subarray(0, 4));
  const tail = new TextDecoder().decode(bytes.subarray(bytes.length - 4));
  if (bytes.length < 12 || head !== MAGIC || tail !== MAGIC) throw new SourceFormatError(name, "not a parquet file, or a truncated one (missing PAR1 magic)");
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  try {
    const rows = (await parquetReadObjects({ file, compressors })) as Record<string, unknown>[];
    return rows.map((r) => plain(r) as Record<string, unknown>);
  } catch (e) {
    throw new SourceFormatError(name, `cannot read the parquet file (${(e as Error).message})`);
  }
}

function plain(v: unknown): unknown {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Date) return v.toISOString();
  if (v && typeof v === "object" && !(v instanceof Uint8Array)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
