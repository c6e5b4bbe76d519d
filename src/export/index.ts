/**
 * Experiment tracking (components §5): every fully configured backend (W&B, MLflow) is opened,
 * the others are silently skipped; every call is best-effort (a failing backend warns, the run
 * goes on). Rollouts are spooled to a temp file while the run goes, so memory stays flat.
 */
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { log } from "../log.ts";
import { readLines } from "../util/jsonl.ts";
import { openMlflow } from "./mlflow.ts";
import { sanitizeRollout, type Exporter } from "./types.ts";
import { openWandb } from "./wandb.ts";
import type { ConfigAccess } from "../config/access.ts";

/** What the driver calls. */
export interface Exporters {
  /** Backends that opened. */
  readonly names: string[];
  /** Queue one rollout for upload (no-op without backends). */
  spoolRollout(record: Record<string, unknown>): void;
  /** Log a flat metrics dict to every backend. */
  logMetrics(flat: Record<string, unknown>): Promise<void>;
  /** Upload spooled rollouts, then close every backend. */
  finish(): Promise<void>;
}

async function bestEffort(name: string, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    log.warn(`${name}: ${what} failed (${(e as Error).message}); the run continues`);
  }
}

/** Open the configured backends named by the config's tracker keys. */
export async function setupExporters(config: ConfigAccess): Promise<Exporters> {
  const get = config.read;
  const dict = config.dict;
  const backends: Exporter[] = [];
  for (const open of [openWandb, openMlflow]) {
    try {
      const b = await open(get, dict);
      if (b) backends.push(b);
    } catch (e) {
      log.warn(`experiment tracking: a backend failed to start (${(e as Error).message}); skipped`);
    }
  }
  let spool: { path: string; fd: number } | undefined;
  return {
    names: backends.map((b) => b.name),
    spoolRollout(record) {
      if (backends.length === 0) return;
      if (!spool) {
        const path = join(tmpdir(), `gym-upload-${process.pid}-${Date.now()}.jsonl.upload.tmp`);
        spool = { path, fd: openSync(path, "w") };
      }
      writeSync(spool.fd, `${JSON.stringify(sanitizeRollout(record))}\n`);
    },
    async logMetrics(flat) {
      for (const b of backends) await bestEffort(b.name, "logging metrics", () => b.logMetrics(flat));
    },
    async finish() {
      if (spool) {
        closeSync(spool.fd);
        const rows: string[] = [];
        for await (const l of readLines(spool.path)) if (l.text) rows.push(l.text);
        for (const b of backends) await bestEffort(b.name, "uploading rollouts", () => b.logRollouts(rows));
        rmSync(spool.path, { force: true });
        spool = undefined;
      }
      for (const b of backends) await bestEffort(b.name, "closing the run", () => b.close());
    },
  };
}
