import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extractAssets } from "../../src/assets/embedded.ts";
import { ASSETS_DIGEST } from "../../src/assets/digest.gen.ts";
import { ASSET_FILES } from "../../src/assets/files.gen.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("embedded assets", () => {
  test("the digest module hashes exactly the embedded files (paths and texts, in order)", () => {
    const h = new Bun.CryptoHasher("sha256");
    for (const [rel, text] of ASSET_FILES) {
      h.update(rel);
      h.update(text);
    }
    expect(ASSET_FILES.length).toBeGreaterThan(0);
    expect(h.digest("hex").slice(0, 16)).toBe(ASSETS_DIGEST);
  });

  test("extractAssets writes the tree and .complete once, and leaves a complete tree alone", async () => {
    await using dir = await tempDir();
    const target = join(dir.path, "assets-x");
    const files: [string, string][] = [["a/configs/a.yaml", "a: 1\n"], ["b.txt", "bee\n"]];
    extractAssets(target, files, "d1");
    expect(readFileSync(join(target, "a", "configs", "a.yaml"), "utf8")).toBe("a: 1\n");
    expect(readFileSync(join(target, "b.txt"), "utf8")).toBe("bee\n");
    expect(readFileSync(join(target, ".complete"), "utf8")).toBe("d1");
    // No temp dir left beside the target.
    expect(readdirSync(dir.path)).toEqual(["assets-x"]);

    writeFileSync(join(target, "b.txt"), "edited\n");
    extractAssets(target, files, "d1");
    expect(readFileSync(join(target, "b.txt"), "utf8")).toBe("edited\n");
  });
});
