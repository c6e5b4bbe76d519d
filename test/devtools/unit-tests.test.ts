import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unitTests } from "../../src/devtools/unit-tests.ts";
import { tempDir } from "../helpers/tmp.ts";

const hasPython = Bun.which("python3") !== null;

function server(dir: string, assertion: string): void {
  mkdirSync(join(dir, "tests"), { recursive: true });
  writeFileSync(join(dir, "tests", "test_one.py"), `import unittest\n\nclass T(unittest.TestCase):\n    def test_it(self):\n        ${assertion}\n`);
}

describe("env test: an external server's unit tests", () => {
  test("built-ins and servers without tests/ are skipped", async () => {
    await using d = await tempDir();
    expect((await unitTests(d.path, { builtin: true, python: "python3", deadlineMs: 10_000 })).status).toBe("skip");
    expect((await unitTests(d.path, { builtin: false, python: "python3", deadlineMs: 10_000 })).status).toBe("skip");
  });

  test("no interpreter: a failure that names both candidates", async () => {
    await using d = await tempDir();
    server(d.path, "self.assertTrue(True)");
    const c = await unitTests(d.path, { builtin: false, python: "no-such-python-xyz", deadlineMs: 10_000 });
    expect(c.status).toBe("fail");
    expect(c.detail).toContain("no-such-python-xyz");
    expect(c.detail).toContain(join(d.path, ".venv", "bin", "python"));
  });

  test.skipIf(!hasPython)("the venv's python runs the tests; without pytest it falls back to unittest; a failing test fails the check", async () => {
    await using d = await tempDir();
    server(d.path, "self.assertEqual(1 + 1, 2)");
    // A venv python that has no pytest: refuses `import pytest`, otherwise is python3.
    const venvPython = join(d.path, ".venv", "bin", "python");
    mkdirSync(join(d.path, ".venv", "bin"), { recursive: true });
    writeFileSync(venvPython, `#!/bin/sh\nif [ "$1" = "-c" ]; then exit 1; fi\nexec python3 "$@"\n`);
    chmodSync(venvPython, 0o755);
    const ok = await unitTests(d.path, { builtin: false, python: "python3", deadlineMs: 30_000 });
    expect(ok.status).toBe("pass");
    expect(ok.detail).toContain("unittest discover -s tests");
    expect(ok.detail).toContain(venvPython);

    server(d.path, "self.assertEqual(1 + 1, 3)");
    const bad = await unitTests(d.path, { builtin: false, python: "python3", deadlineMs: 30_000 });
    expect(bad.status).toBe("fail");
    expect(bad.detail).toContain("exited 1");
    expect(bad.detail).toContain("AssertionError");
  });
});
