/**
 * The rollouts of a whole `gym eval run` (driver → legacy_agent → simple_agent → resources + model
 * servers) are the same whether gym's processes talk over their Unix-domain sockets (the default)
 * or over TCP only (GYM_UNIX_SOCKETS=0), and the sockets are gone once the run ends.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, runGym, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");
const dataset = (file: string) => `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${file}}]`;

describe("gym eval run over Unix-domain sockets", () => {
  test("the same rollout rows over Unix sockets and over TCP; no socket left behind", async () => {
    await using dir = await tempDir();
    const rows = readFileSync(EXAMPLE, "utf8").trim().split("\n").slice(0, 5);
    writeFileSync(join(dir.path, "val.jsonl"), `${rows.join("\n")}\n`);
    const sockets = join(dir.path, "sock");
    mkdirSync(sockets, { mode: 0o700 });
    const run = (out: string, env: Record<string, string>) =>
      runGym(["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "validation", "-o", out,
        "--num-repeats", "2", "--concurrency", "4", "+head_server.port=0", dataset(join(dir.path, "val.jsonl"))], { cwd: dir.path, env });
    // Watch the socket directory while the servers are up: each built-in server has its socket there.
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, readdirSync(sockets).filter((f) => f.endsWith(".sock")).length)), 5);
    const viaUnix = await run("unix/r.jsonl", { GYM_SOCKET_DIR: sockets });
    clearInterval(watch);
    expect(viaUnix.code).toBe(0);
    expect(most).toBe(4); // legacy_agent, simple_agent, resources, model
    const viaTcp = await run("tcp/r.jsonl", { GYM_UNIX_SOCKETS: "0" });
    expect(viaTcp.code).toBe(0);
    const key = (r: Record<string, unknown>) => `${r._ng_task_index}:${r._ng_rollout_index}`;
    // Generated ids (resp_…, msg_…, call_…) are random per run and created_at is a clock: compare them as shapes.
    const sorted = (p: string) => readJsonl(join(dir.path, p)).sort((a, b) => key(a).localeCompare(key(b))).map((r) => JSON.parse(JSON.stringify(r).replace(/\b([a-z]+)_[0-9a-f]{32}\b/g, "$1_<id>").replace(/"created_at":\d+/g, '"created_at":0')));
    const a = sorted("unix/r.jsonl");
    expect(a.length).toBe(10);
    expect(a).toEqual(sorted("tcp/r.jsonl"));
    expect(readFileSync(join(dir.path, "unix", "r_aggregate_metrics.json"), "utf8")).toBe(readFileSync(join(dir.path, "tcp", "r_aggregate_metrics.json"), "utf8"));
    // Every server removed its socket on the way out.
    expect(existsSync(sockets) ? readdirSync(sockets) : []).toEqual([]);
  }, 120_000);
});
