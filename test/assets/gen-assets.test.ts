import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/tmp.ts";

const script = join(import.meta.dir, "..", "..", "scripts", "gen-assets.ts");

function gen(args: string[]): { code: number; stderr: string } {
  const p = Bun.spawnSync([process.execPath, script, ...args], { stderr: "pipe", stdout: "ignore" });
  return { code: p.exitCode ?? -1, stderr: p.stderr.toString() };
}

test("src/assets/files.gen.ts and digest.gen.ts match assets/ (run `bun scripts/gen-assets.ts` after changing assets)", () => {
  const r = gen(["--check"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
});

describe("gen-assets on a scratch checkout", () => {
  test("writes the digest to its own module, the file texts to the other; a content change makes only the digest stale", async () => {
    await using dir = await tempDir();
    mkdirSync(join(dir.path, "assets", "a", "configs"), { recursive: true });
    mkdirSync(join(dir.path, "src", "assets"), { recursive: true });
    writeFileSync(join(dir.path, "assets", "a", "configs", "a.yaml"), "a: 1\n");
    writeFileSync(join(dir.path, "assets", "b.txt"), "bee\n");
    expect(gen(["--root", dir.path]).code).toBe(0);

    const digestText = await Bun.file(join(dir.path, "src", "assets", "digest.gen.ts")).text();
    const filesText = await Bun.file(join(dir.path, "src", "assets", "files.gen.ts")).text();
    const digest = /ASSETS_DIGEST = "([0-9a-f]{16})"/.exec(digestText)?.[1];
    expect(digest).toBeDefined();
    expect(digestText).not.toContain("import ");
    expect(filesText).not.toContain("ASSETS_DIGEST =");
    expect(filesText).toContain('"a/configs/a.yaml"');
    expect(filesText).toContain('"b.txt"');
    expect(gen(["--root", dir.path, "--check"]).code).toBe(0);

    writeFileSync(join(dir.path, "assets", "b.txt"), "bees\n");
    const check = gen(["--root", dir.path, "--check"]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("digest.gen.ts is stale");
    expect(check.stderr).not.toContain("files.gen.ts is stale");
    expect(gen(["--root", dir.path]).code).toBe(0);
    const next = /ASSETS_DIGEST = "([0-9a-f]{16})"/.exec(await Bun.file(join(dir.path, "src", "assets", "digest.gen.ts")).text())?.[1];
    expect(next).toBeDefined();
    expect(next).not.toBe(digest);
  });
});
