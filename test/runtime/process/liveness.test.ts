/** Liveness probing in serve mode (issue 11): a SIGSTOPped server is named within a bounded time, and its recovery too. */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import "../../../src/components/index.ts";
import { isBuiltin } from "../../../src/components/registry.ts";
import { Supervisor } from "../../../src/runtime/process/supervisor.ts";
import { tempDir } from "../../helpers/tmp.ts";
import { resolvedConfig, type ServerDef } from "../_env.ts";

setDefaultTimeout(60_000);

const started: Supervisor[] = [];
const stoppedPids: number[] = [];
afterEach(async () => {
  for (const p of stoppedPids.splice(0)) {
    try {
      process.kill(p, "SIGCONT");
    } catch {
      // gone
    }
  }
  for (const s of started.splice(0)) await s.shutdown({ quiet: true });
});

const rs: ServerDef = { name: "tool_rs", type: "resources_servers", impl: "example_single_tool_call", leaf: { entrypoint: "app.py", domain: "agent" } };

async function waitFor(lines: string[], re: RegExp, ms: number): Promise<string | undefined> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const hit = lines.find((l) => re.test(l));
    if (hit) return hit;
    await Bun.sleep(50);
  }
  return undefined;
}

describe("server liveness", () => {
  test("a SIGSTOPped server is reported by name and pid within the stall time; its recovery is reported too", async () => {
    await using logs = await tempDir();
    const lines: string[] = [];
    const sup = new Supervisor({ resolved: resolvedConfig([rs], { nemo_gym_log_dir: logs.path, server_liveness_timeout_seconds: 2 }), isBuiltin, out: (l) => lines.push(l) });
    started.push(sup);
    await sup.start();
    const pid = sup.pids[0]!;
    process.kill(pid, "SIGSTOP");
    stoppedPids.push(pid);
    const t0 = performance.now();
    const hit = await waitFor(lines, /tool_rs.*has not answered/, 20_000);
    expect(hit).toBeDefined();
    expect(hit!).toContain(`pid ${pid}`);
    expect(performance.now() - t0).toBeLessThan(20_000);
    process.kill(pid, "SIGCONT");
    expect(await waitFor(lines, /tool_rs` answers again/, 20_000)).toBeDefined();
  });
});
