import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

/** An executable that prints its name and arguments (a stand-in for a venv python or uv). */
function fakeExe(path: string, name: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho "${name} $*"\n`);
  chmodSync(path, 0o755);
}

// PATH with only the system tools a shell script needs (no uv), plus bun's own directory.
const basePath = `${dirname(process.execPath)}:/usr/bin:/bin`;

describe("gym env packages", () => {
  test("missing venv: a hint and exit 1", async () => {
    await using d = await tempDir();
    const r = await runGym(["env", "packages", "--resources-server", "example_single_tool_call"], { cwd: d.path, env: { PATH: basePath } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No virtual environment at");
    expect(r.stderr).toContain("built-in servers have none");
  });

  test("uv pip list against the server venv; --json → --format json; without uv, python -m pip list and a notice", async () => {
    await using d = await tempDir();
    const dir = join(d.path, "resources_servers", "ext_rs");
    const python = join(dir, ".venv", "bin", "python");
    fakeExe(python, "venv-python");
    fakeExe(join(d.path, "bin", "uv"), "fake-uv");

    const viaUv = await runGym(["env", "packages", "--resources-server", "ext_rs", "--json", "--outdated"], { cwd: d.path, env: { PATH: `${join(d.path, "bin")}:${basePath}` } });
    expect(viaUv.code).toBe(0);
    expect(viaUv.stdout.trim()).toBe(`fake-uv pip list --python ${python} --format json --outdated`);

    const viaPip = await runGym(["env", "packages", "+entrypoint=resources_servers/ext_rs"], { cwd: d.path, env: { PATH: basePath } });
    expect(viaPip.code).toBe(0);
    expect(viaPip.stdout.trim()).toBe("venv-python -m pip list");
    expect(viaPip.stderr).toContain("uv is not installed");
  });
});
