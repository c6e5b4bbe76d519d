/**
 * The staged gym binary, once per content digest (D23): a submit copies the ~115 MB binary to
 * `<job.output_path>/.gym-bin/gym-<sha256>` only when the cluster does not hold that exact file
 * yet, then links it into the run dir as `<run dir>/gym` (a hard link where the filesystem
 * allows, else a symbolic one). The file is content-addressed and written by rename, so the job
 * still runs exactly the binary that rendered its script.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RuntimeError } from "../errors.ts";
import { q } from "./render/shell.ts";
import type { Connection } from "./ssh.ts";
import { stageGymBinary } from "./stage.ts";

/** Folder under `job.output_path` that holds the content-addressed binaries. */
export const BINARY_CACHE_DIR = ".gym-bin";

/** sha256 (hex) of a file, streamed. */
async function sha256(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** What happened: whether the binary had to be copied, and where it lives on the cluster. */
export interface StagedBinary {
  path: string;
  copied: boolean;
}

/**
 * Put this gym binary in the cluster-side cache (unless the same content is there) and link it as
 * `<runDir>/gym`. Call after the run tree was copied: that copy replaces the run dir.
 */
export async function linkStagedBinary(conn: Connection, outputPath: string, runDir: string): Promise<StagedBinary> {
  const local = mkdtempSync(join(tmpdir(), "gym-bin-"));
  try {
    stageGymBinary(join(local, "gym"));
    const digest = await sha256(join(local, "gym"));
    const cacheDir = `${outputPath.replace(/\/+$/, "")}/${BINARY_CACHE_DIR}`;
    const cached = `${cacheDir}/gym-${digest}`;
    // A cached file counts only when its content still has the digest (checked where sha256sum exists).
    const probe = await conn.run(
      `if [ -f ${q(cached)} ] && { ! command -v sha256sum >/dev/null 2>&1 || [ "$(sha256sum < ${q(cached)} | cut -c1-64)" = ${digest} ]; }; then echo __GYM_HAVE; fi\n`,
      "binary cache",
    );
    const copied = !probe.stdout.includes("__GYM_HAVE");
    if (copied) {
      const incoming = `${cacheDir}/.incoming-${digest.slice(0, 16)}-${process.pid}-${Date.now()}`;
      await conn.copyTree(local, incoming);
      // rename is atomic: a concurrent submit or job never sees a half-written binary.
      const mv = await conn.run(`chmod 0755 ${q(`${incoming}/gym`)} && mv -f ${q(`${incoming}/gym`)} ${q(cached)}; rc=$?; rm -rf ${q(incoming)}; exit $rc\n`, "binary cache");
      if (mv.code !== 0) throw new RuntimeError(`could not place the gym binary at ${cached}: ${mv.stderr.trim()}`, { code: "E_SUBMIT_COMMAND" });
    }
    const link = await conn.run(`ln -f ${q(cached)} ${q(`${runDir}/gym`)} 2>/dev/null || ln -sf ${q(cached)} ${q(`${runDir}/gym`)}\n`, "link binary");
    if (link.code !== 0) throw new RuntimeError(`could not link ${runDir}/gym to ${cached}: ${link.stderr.trim()}`, { code: "E_SUBMIT_COMMAND" });
    return { path: cached, copied };
  } finally {
    rmSync(local, { recursive: true, force: true });
  }
}
