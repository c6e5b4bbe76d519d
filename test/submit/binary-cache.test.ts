import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { linkStagedBinary } from "../../src/submit/binary-cache.ts";
import { localConnection } from "../../src/submit/ssh.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("the staged gym binary: once per content digest, linked into each run dir (D23)", () => {
  test("first submit copies, the next ones only link; every run dir runs the same bytes", async () => {
    await using dir = await tempDir();
    const conn = localConnection();
    const runA = join(dir.path, "gym-job-a");
    const runB = join(dir.path, "gym-job-b");
    mkdirSync(runA);
    mkdirSync(runB);
    const a = await linkStagedBinary(conn, dir.path, runA);
    expect(a.copied).toBe(true);
    expect(a.path).toMatch(new RegExp(`^${dir.path}/\\.gym-bin/gym-[0-9a-f]{64}$`));
    const b = await linkStagedBinary(conn, dir.path, runB);
    expect(b).toEqual({ path: a.path, copied: false });
    for (const run of [runA, runB]) {
      expect(statSync(join(run, "gym")).mode & 0o777).toBe(0o755);
      expect(readFileSync(join(run, "gym"), "utf8")).toBe(readFileSync(a.path, "utf8"));
    }
    // Nothing but the one binary in the cache (no leftover incoming dirs).
    expect(readdirSync(join(dir.path, ".gym-bin"))).toEqual([a.path.split("/").pop()!]);
    // The staged launcher (from source) or binary actually runs.
    const p = Bun.spawnSync([join(runB, "gym"), "--version"], { stdout: "pipe" });
    expect(p.stdout.toString()).toMatch(/^gym \d+\.\d+\.\d+/);
  }, 60_000);

  test.skipIf(Bun.which("sha256sum") === null)("a cached file whose content no longer has its digest is replaced", async () => {
    await using dir = await tempDir();
    const conn = localConnection();
    const run = join(dir.path, "gym-job-a");
    mkdirSync(run);
    const first = await linkStagedBinary(conn, dir.path, run);
    const good = readFileSync(first.path, "utf8");
    writeFileSync(first.path, "#!/bin/sh\necho tampered\n");
    const run2 = join(dir.path, "gym-job-b");
    mkdirSync(run2);
    const again = await linkStagedBinary(conn, dir.path, run2);
    expect(again.copied).toBe(true);
    expect(readFileSync(join(run2, "gym"), "utf8")).toBe(good);
    expect(existsSync(again.path)).toBe(true);
  }, 60_000);
});
