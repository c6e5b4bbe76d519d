import { afterEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import "../../../src/components/index.ts";
import { isBuiltin } from "../../../src/components/registry.ts";
import { Profiler } from "../../../src/runtime/process/profiling.ts";
import { Supervisor } from "../../../src/runtime/process/supervisor.ts";
import { tempDir } from "../../helpers/tmp.ts";
import { getJson, resolvedConfig } from "../_env.ts";

// Real processes on a shared 2-core machine: allow more than bun's 5 s default.
setDefaultTimeout(30_000);

describe("Profiler", () => {
  test("ncall/ttot/tsub: nested wrapped time counts in the parent's ttot but not its tsub", async () => {
    const p = new Profiler();
    for (let i = 0; i < 2; i++) {
      await p.time("outer", async () => {
        await Bun.sleep(20);
        await p.time("inner", () => Bun.sleep(40));
      });
    }
    const table = p.render("srv");
    const row = (name: string) => table.split("\n").find((l) => l.startsWith(name.padEnd(200)))!.slice(200).trim().split(/\s+/).map(Number);
    const [oc, osub, otot, oavg] = row("outer");
    const [ic, , itot] = row("inner");
    expect(oc).toBe(2);
    expect(ic).toBe(2);
    expect(otot!).toBeGreaterThanOrEqual(itot!);
    expect(osub!).toBeLessThan(otot! - itot! + 0.02);
    expect(oavg!).toBeCloseTo(otot! / 2, 5);
    expect(table.split("\n")[4]).toMatch(/^name {196}  ncall {5}  tsub {4}  ttot {4}  tavg/);
  });
});

describe("profiling in a server process", () => {
  let sup: Supervisor | undefined;
  afterEach(async () => {
    await sup?.shutdown({ quiet: true });
  });

  test("GET /stats and shutdown write <dir>/<server>.log with the handler rows", async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "prof");
    sup = new Supervisor({
      resolved: resolvedConfig([{ name: "tool_rs", type: "resources_servers", impl: "example_single_tool_call", leaf: { entrypoint: "app.py", domain: "agent" } }], {
        profiling_enabled: true,
        profiling_results_dirpath: out,
      }),
      isBuiltin,
      out: () => {},
    });
    await sup.start();
    const [inst] = (await getJson(`http://127.0.0.1:${sup.head.port}/server_instances`)).body as { url: string }[];
    for (let i = 0; i < 3; i++) await (await fetch(`${inst!.url}/get_weather`, { method: "POST", body: '{"city":"x"}' })).text();
    const stats = await fetch(`${inst!.url}/stats`);
    expect(stats.status).toBe(200);
    const file = join(out, "tool_rs.log");
    const row = readFileSync(file, "utf8").split("\n").find((l) => l.startsWith("POST /get_weather"))!;
    expect(row.slice(200).trim().split(/\s+/)[0]).toBe("3");
    await fetch(`${inst!.url}/get_weather`, { method: "POST", body: '{"city":"y"}' });
    await sup.shutdown({ quiet: true });
    expect(existsSync(file)).toBe(true);
    const after = readFileSync(file, "utf8").split("\n").find((l) => l.startsWith("POST /get_weather"))!;
    expect(after.slice(200).trim().split(/\s+/)[0]).toBe("4");
  });
});
