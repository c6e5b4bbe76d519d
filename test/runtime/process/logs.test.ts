import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LOG_DIRS_TO_KEEP, logDirsToKeep, pruneLogDirs } from "../../../src/runtime/process/logs.ts";
import { Supervisor } from "../../../src/runtime/process/supervisor.ts";
import { tempDir } from "../../helpers/tmp.ts";

/** A pid that is certainly not running: a child that already exited. */
function deadPid(): number {
  const p = Bun.spawnSync(["true"]);
  return p.pid;
}

describe("per-run default log dirs are pruned", () => {
  test("the oldest go, keeping room for this run; live runs and foreign names stay", async () => {
    await using dir = await tempDir();
    const dead = deadPid();
    const names = ["20260101T000000", "20260102T000000", "20260103T000000", "20260104T000000", "20260105T000000"].map((s) => `${s}-${dead}`);
    for (const n of names) {
      mkdirSync(join(dir.path, n));
      writeFileSync(join(dir.path, n, "a.log"), "x\n");
    }
    const live = `20250101T000000-${process.pid}`;
    mkdirSync(join(dir.path, live));
    mkdirSync(join(dir.path, "not-a-run"));
    const removed = pruneLogDirs(join(dir.path), 3);
    // 6 run dirs, keep 3 including the one about to be created: the 4 oldest are candidates; the live one stays.
    expect(removed).toEqual(names.slice(0, 3));
    expect(readdirSync(dir.path).sort()).toEqual([live, ...names.slice(3), "not-a-run"].sort());
    expect(pruneLogDirs(dir.path, 0)).toEqual([]);
    expect(pruneLogDirs(join(dir.path, "missing"), 3)).toEqual([]);
  });

  test("log_dirs_to_keep: default, explicit, bad value", () => {
    expect(logDirsToKeep(undefined)).toBe(DEFAULT_LOG_DIRS_TO_KEEP);
    expect(logDirsToKeep(5)).toBe(5);
    expect(logDirsToKeep("0")).toBe(0);
    expect(() => logDirsToKeep(-1)).toThrow("log_dirs_to_keep must be a non-negative integer");
  });

  test("a supervisor without nemo_gym_log_dir prunes the default parent", async () => {
    await using dir = await tempDir();
    const parent = join(dir.path, "gym-logs");
    mkdirSync(parent);
    const dead = deadPid();
    for (const s of ["20260101T000000", "20260102T000000", "20260103T000000"]) mkdirSync(join(parent, `${s}-${dead}`));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = dir.path;
    try {
      const sup = new Supervisor({ resolved: { dict: { log_dirs_to_keep: 2 }, servers: [], roots: [] }, isBuiltin: () => false });
      expect(sup.logDir.startsWith(parent)).toBe(true);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(readdirSync(parent)).toEqual([`20260103T000000-${dead}`]);
  });
});
