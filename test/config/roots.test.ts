import { describe, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { foldSearchDirs, searchRoots } from "../../src/config/roots.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("search roots (§5)", () => {
  test("NEMO_GYM_EXTRA_ROOTS → cwd → install root; --search-dir replaces the variable and is restored after", async () => {
    await using a = await tempDir();
    await using b = await tempDir();
    await using cwd = await tempDir();
    process.env.NEMO_GYM_EXTRA_ROOTS = a.path;
    try {
      const before = await searchRoots({ cwd: cwd.path });
      expect(before.slice(0, 2)).toEqual([realpathSync(a.path), realpathSync(cwd.path)]);
      const restore = foldSearchDirs([b.path], cwd.path);
      expect(process.env.NEMO_GYM_EXTRA_ROOTS).toBe(b.path);
      const during = await searchRoots({ cwd: cwd.path });
      expect(during.slice(0, 2)).toEqual([realpathSync(b.path), realpathSync(cwd.path)]);
      restore();
      expect(process.env.NEMO_GYM_EXTRA_ROOTS).toBe(a.path);
    } finally {
      delete process.env.NEMO_GYM_EXTRA_ROOTS;
    }
    const restore = foldSearchDirs([b.path]);
    restore();
    expect(process.env.NEMO_GYM_EXTRA_ROOTS).toBeUndefined();
  });
});
