import { expect, test } from "bun:test";
import { join } from "node:path";

test("src/assets/files.gen.ts matches assets/ (run `bun scripts/gen-assets.ts` after changing assets)", () => {
  const script = join(import.meta.dir, "..", "..", "scripts", "gen-assets.ts");
  const p = Bun.spawnSync([process.execPath, script, "--check"], { stderr: "pipe" });
  expect(p.stderr.toString()).toBe("");
  expect(p.exitCode).toBe(0);
});
