import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

describe("gym dev test", () => {
  test("runs bun test in the gym checkout (found from a subdirectory) and passes its exit code through", async () => {
    await using d = await tempDir();
    writeFileSync(join(d.path, "package.json"), JSON.stringify({ name: "gym", private: true }));
    mkdirSync(join(d.path, "test", "sub"), { recursive: true });
    writeFileSync(join(d.path, "test", "good.test.ts"), 'import { test, expect } from "bun:test";\ntest("one", () => expect(1 + 1).toBe(2));\n');
    writeFileSync(join(d.path, "test", "bad.test.ts"), 'import { test, expect } from "bun:test";\ntest("two", () => expect(1 + 1).toBe(3));\n');
    const good = await runGym(["dev", "test", "good"], { cwd: join(d.path, "test", "sub") });
    expect(good.code).toBe(0);
    expect(good.stderr).toContain("1 pass");
    const all = await runGym(["dev", "test"], { cwd: d.path });
    expect(all.code).toBe(1);
    expect(all.stderr).toContain("1 fail");
  });

  test("outside a checkout: a usage error with a hint, exit 2", async () => {
    await using d = await tempDir();
    const r = await runGym(["dev", "test"], { cwd: d.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no gym source checkout");
  });
});
