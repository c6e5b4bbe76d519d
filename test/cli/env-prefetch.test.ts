import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

describe("gym env prefetch", () => {
  test("built-ins: nothing to build, nothing started, exit 0", async () => {
    await using d = await tempDir();
    const r = await runGym(["env", "prefetch", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model"], { cwd: d.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("example_single_tool_call (resources_servers/example_single_tool_call): built in, nothing to build");
    expect(r.stdout).toContain("policy_model (responses_api_models/scripted_model): built in");
    expect(r.stderr).toContain("nothing was started");
  });

  test("external servers: the command it would run; a missing entrypoint names the server, exit 1", async () => {
    await using d = await tempDir();
    const dir = join(d.path, "resources_servers", "ext_rs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "app.py"), "print('hi')\n");
    const cfg = (ep: string) => `ext_rs:\n  resources_servers:\n    ext_rs:\n      entrypoint: ${ep}\n      domain: other\n`;
    writeFileSync(join(d.path, "ok.yaml"), cfg("app.py"));
    writeFileSync(join(d.path, "bad.yaml"), cfg("missing.py"));
    const ok = await runGym(["env", "prefetch", "--config", "ok.yaml", "+python_executable=python3"], { cwd: d.path });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`ext_rs (resources_servers/ext_rs): external, would run \`python3 ${join(dir, "app.py")}\` in ${dir}`);
    const bad = await runGym(["env", "prefetch", "--config", "bad.yaml"], { cwd: d.path });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Prefetch failed to set up 1 servers");
    expect(bad.stderr).toContain(`ext_rs: entrypoint ${join(dir, "missing.py")} does not exist`);
  });
});
