/**
 * Air-gapped benchmark bundles: one tar holding every prepared JSONL (`prepared/<jsonl_fpath>`),
 * the raw sources (`sources/<benchmark>/<source name>`: the `--data-dir` layout) and
 * `manifest.json` with a sha256 per file. Installing checks every checksum before writing anything.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RuntimeError } from "../errors.ts";
import { log } from "../log.ts";
import { readTar, writeTar, type TarEntry } from "../dataset/formats/tar.ts";
import { outputPath, writeAtomic, type PreparedBenchmark } from "./prepare.ts";

const FORMAT = "gym-benchmark-bundle/1";
const MANIFEST = "manifest.json";

interface FileRecord {
  path: string;
  sha256: string;
  bytes: number;
}

interface Manifest {
  format: string;
  /** `extra`: side files a preparer wrote under the output root (e.g. evalplus' expected outputs). */
  benchmarks: Record<string, { jsonl_fpath: string; prepared: FileRecord; sources: FileRecord[]; extra?: FileRecord[] }>;
}

function sha256(b: Uint8Array): string {
  return createHash("sha256").update(b).digest("hex");
}

function record(path: string, data: Uint8Array): FileRecord {
  return { path, sha256: sha256(data), bytes: data.length };
}

/** Write a bundle of `prepared` benchmarks to `file` (temp file + rename). */
export function writeBundle(file: string, prepared: PreparedBenchmark[]): void {
  const entries: TarEntry[] = [];
  const manifest: Manifest = { format: FORMAT, benchmarks: {} };
  for (const p of [...prepared].sort((a, b) => (a.job.name < b.job.name ? -1 : 1))) {
    const rel = `prepared/${p.job.jsonlFpath.replace(/^\/+/, "")}`;
    entries.push({ path: rel, data: p.jsonl });
    const sources = p.sources.map((s) => {
      const path = `sources/${p.job.preparer.name}/${s.name}`;
      entries.push({ path, data: s.bytes });
      return record(path, s.bytes);
    });
    const extra = (p.extra ?? []).map((x) => {
      const path = `prepared/${x.path}`;
      entries.push({ path, data: x.bytes });
      return record(path, x.bytes);
    });
    manifest.benchmarks[p.job.name] = { jsonl_fpath: p.job.jsonlFpath, prepared: record(rel, p.jsonl), sources, ...(extra.length > 0 ? { extra } : {}) };
  }
  entries.unshift({ path: MANIFEST, data: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`) });
  writeAtomic(file, writeTar(entries));
  log.info(`wrote ${file}: ${prepared.length} benchmark(s), ${entries.length - 1} file(s)`);
}

function bundleError(file: string, what: string): RuntimeError {
  return new RuntimeError(`${file}: ${what}`, { code: "E_BUNDLE", hint: "copy the bundle again (or rebuild it with `gym eval prepare --all --bundle FILE` where the network is reachable)" });
}

/** Check a bundle whole, then install its prepared JSONL files under `outputRoot`; returns the paths written. */
export function installBundle(file: string, outputRoot: string, only?: string[]): string[] {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new RuntimeError(`cannot read the bundle ${file}: ${(e as Error).message}`);
  }
  const entries = new Map(readTar(bytes, file).map((e) => [e.path, e.data]));
  const raw = entries.get(MANIFEST);
  if (!raw) throw bundleError(file, `no ${MANIFEST}: not a gym benchmark bundle`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(raw)) as Manifest;
  } catch {
    throw bundleError(file, `${MANIFEST} is not valid JSON`);
  }
  if (manifest.format !== FORMAT || typeof manifest.benchmarks !== "object") throw bundleError(file, `unknown bundle format ${JSON.stringify(manifest.format)} (expected ${FORMAT})`);
  const names = only && only.length > 0 ? only : Object.keys(manifest.benchmarks);
  for (const n of names) if (!manifest.benchmarks[n]) throw bundleError(file, `benchmark '${n}' is not in the bundle (it holds: ${Object.keys(manifest.benchmarks).join(", ")})`);
  for (const n of names) {
    const b = manifest.benchmarks[n]!;
    for (const rec of [b.prepared, ...b.sources, ...(b.extra ?? [])]) {
      const data = entries.get(rec.path);
      if (!data) throw bundleError(file, `benchmark '${n}': entry ${rec.path} is missing`);
      if (data.length !== rec.bytes || sha256(data) !== rec.sha256) throw bundleError(file, `benchmark '${n}': entry ${rec.path} is corrupted (sha256 does not match the manifest)`);
    }
  }
  const written: string[] = [];
  for (const n of names) {
    const b = manifest.benchmarks[n]!;
    const path = outputPath(outputRoot, b.jsonl_fpath);
    for (const rec of b.extra ?? []) {
      const extraPath = join(outputRoot, rec.path.replace(/^prepared\//, ""));
      writeAtomic(extraPath, entries.get(rec.path)!);
      written.push(extraPath);
    }
    writeAtomic(path, entries.get(b.prepared.path)!);
    log.info(`${n}: installed ${path}`);
    written.push(path);
  }
  return written;
}
