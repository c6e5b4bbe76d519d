/**
 * The embedded install root (spec cli-config §5: the last search root). From source it is the
 * repo's assets/ directory; inside the compiled binary the files are extracted once per content
 * digest to a cache directory, so every consumer (config loader, datasets, external Python
 * servers) sees ordinary files.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { readEnv } from "../env.ts";
import { ASSETS_DIGEST } from "./digest.gen.ts";

let cached: string | undefined;

function sourceAssetsDir(): string | undefined {
  // import.meta.dir is a $bunfs path inside the compiled binary, a real path from source.
  const dir = resolve(import.meta.dir, "..", "..", "assets");
  return !import.meta.dir.includes("$bunfs") && existsSync(dir) ? dir : undefined;
}

/** gym's cache directory (`$XDG_CACHE_HOME/gym`, else `~/.cache/gym`). */
export function cacheBase(): string {
  const xdg = readEnv().xdgCacheHome;
  const base = xdg && xdg !== "" ? xdg : join(homedir() || tmpdir(), ".cache");
  return join(base, "gym");
}

/**
 * Write `files` under `target` unless a complete tree is already there; `.complete` (holding
 * `digest`) marks a finished extraction.
 */
export function extractAssets(target: string, files: readonly [string, string][], digest: string): void {
  if (existsSync(join(target, ".complete"))) return;
  // Extract into a private temp dir, then rename: concurrent first runs never see half a tree.
  const tmp = `${target}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { recursive: true });
  for (const [rel, text] of files) {
    const p = join(tmp, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  writeFileSync(join(tmp, ".complete"), digest);
  try {
    renameSync(tmp, target);
  } catch {
    // Another process won the race; its tree is identical.
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Where `gym eval prepare` installs prepared benchmarks by default: a search root of its own
 * (`<root>/benchmarks/<name>/data/…`), kept apart from the per-version asset tree so a new
 * binary still finds them.
 */
export function preparedRoot(): string {
  return join(cacheBase(), "prepared");
}

/** Absolute path of the embedded install root, extracting the embedded files on first use. */
export async function embeddedRoot(): Promise<string> {
  if (cached) return cached;
  const src = sourceAssetsDir();
  if (src) return (cached = src);
  const target = join(cacheBase(), `assets-${ASSETS_DIGEST}`);
  // The digest alone says whether this version's tree is there; only a first run loads the texts.
  if (!existsSync(join(target, ".complete"))) extractAssets(target, (await import("./files.gen.ts")).ASSET_FILES, ASSETS_DIGEST);
  return (cached = target);
}
