/** Failing fast and clearly (issue 11): a crashed server exits 1 naming it; bad typed flags and alias bombs stop before anything starts. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GYM_MAIN, runGym, tempDir } from "../helpers/tmp.ts";

// Several CLI runs per test on a shared, noisy machine: more than bun's 5 s default.
setDefaultTimeout(60_000);

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");

function envVars(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

describe("gym eval run fails fast and clearly", () => {
  test("a server killed mid-run (serve mode): exit 1 (D31, not 130) naming the server", async () => {
    await using dir = await tempDir();
    const row = readFileSync(EXAMPLE, "utf8").split("\n")[0]!;
    writeFileSync(join(dir.path, "val.jsonl"), `${Array.from({ length: 400 }, (_, i) => JSON.stringify({ ...JSON.parse(row), id: i })).join("\n")}\n`);
    const args = [
      "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "validation",
      "-o", "out/r.jsonl", "--num-repeats", "4", "--concurrency", "1", "+head_server.port=0",
      `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${join(dir.path, "val.jsonl")}}]`,
    ];
    const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args], { cwd: dir.path, env: envVars(), stdout: "ignore", stderr: "pipe" });
    let stderr = "";
    const reader = proc.stderr.getReader();
    const pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        stderr += new TextDecoder().decode(value);
      }
    })();
    const deadline = performance.now() + 60_000;
    let pid: number | undefined;
    while (pid === undefined && performance.now() < deadline && proc.exitCode === null) {
      const m = /- example_single_tool_call \(resources_servers\/[^)]*\): \S+ {2}pid (\d+)/.exec(stderr);
      if (m) pid = Number(m[1]);
      else await Bun.sleep(20);
    }
    expect(pid).toBeDefined();
    // Let collection start, then kill the resources server.
    while (!existsOutput(dir.path) && performance.now() < deadline) await Bun.sleep(20);
    process.kill(pid!, "SIGKILL");
    const code = await proc.exited;
    await pump;
    expect(code).toBe(1);
    expect(stderr).toContain("error: a server stopped during the run: Process `example_single_tool_call` finished unexpectedly!");
    expect(stderr).toContain("--resume");
  }, 120_000);

  test("--temperature hot is refused before anything starts (exit 2, names the flag)", async () => {
    await using dir = await tempDir();
    const t0 = performance.now();
    const r = await runGym(["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "example", "-o", "o.jsonl", "--temperature", "hot"], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('responses_create_params.temperature must be a number ≥ 0 (e.g. 0.7), got "hot"');
    expect(r.stderr).toContain("--temperature");
    expect(r.stderr).not.toContain("Head server listening");
    expect(performance.now() - t0).toBeLessThan(20_000);
    const tp = await runGym(["eval", "run", "--no-serve", "-i", "x.jsonl", "-o", "o.jsonl", "--top-p", "2"], { cwd: dir.path });
    expect(tp.code).toBe(2);
    expect(tp.stderr).toContain("top_p must be a number between 0 and 1");
    const mt = await runGym(["eval", "run", "--no-serve", "-i", "x.jsonl", "-o", "o.jsonl", "--max-output-tokens", "1.5"], { cwd: dir.path });
    expect(mt.code).toBe(2);
    expect(mt.stderr).toContain("max_output_tokens must be a positive integer");
  });

  test("a YAML alias bomb via --config is a clear config error, not a gym bug", async () => {
    await using dir = await tempDir();
    const levels = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < levels.length; i++) lines.push(`${levels[i]}: &${levels[i]} [${Array(9).fill(`*${levels[i - 1]}`).join(",")}]`);
    writeFileSync(join(dir.path, "bomb.yaml"), `${lines.join("\n")}\n`);
    const r = await runGym(["env", "resolve", "--config", "bomb.yaml"], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expands YAML aliases beyond the limit");
    expect(r.stderr).not.toContain("bug in gym");
  });
});

function existsOutput(dir: string): boolean {
  try {
    return readFileSync(join(dir, "out", "r.jsonl"), "utf8").length > 0;
  } catch {
    return false;
  }
}
