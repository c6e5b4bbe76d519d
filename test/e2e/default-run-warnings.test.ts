import { describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GYM_MAIN, readJsonl, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");

/** Run gym from source under `ulimit -n <files>` (soft and hard), so the open-file budget is the same on every machine. */
async function runLimited(files: number, args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const quoted = [process.execPath, GYM_MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const p = Bun.spawn(["sh", "-c", `ulimit -n ${files} && exec ${quoted}`], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  return { code, stderr };
}

describe("a default run on a built-in example warns about nothing it cannot hit", () => {
  test("5 rows under a 4096-file limit: no open-file warning, no deprecation about gym's own config", async () => {
    await using dir = await tempDir();
    const r = await runLimited(4096, ["eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0"], dir.path);
    expect(r.stderr).toContain("NeMo Gym finished!");
    expect(r.code).toBe(0);
    expect(readJsonl(join(dir.path, "out", "r.jsonl")).length).toBe(5);
    expect(r.stderr).not.toContain("open files");
    expect(r.stderr).not.toContain("has no Environment Server");
  }, 120_000);

  test("the same agent in the user's own config: the legacy_agent deprecation is printed once", async () => {
    await using dir = await tempDir();
    const cfg = readFileSync(join(EXAMPLE, "configs", "example_single_tool_call.yaml"), "utf8");
    writeFileSync(join(dir.path, "mine.yaml"), cfg.replaceAll("resources_servers/example_single_tool_call/data/example.jsonl", join(dir.path, "example.jsonl")));
    copyFileSync(join(EXAMPLE, "data", "example.jsonl"), join(dir.path, "example.jsonl"));
    const r = await runLimited(4096, ["eval", "run", "--config", join(dir.path, "mine.yaml"), "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "+head_server.port=0"], dir.path);
    expect(r.code).toBe(0);
    expect(r.stderr.split("has no Environment Server").length - 1).toBe(1);
  }, 120_000);

  test("more rollouts than the agent's descriptors allow: the warning still comes, once", async () => {
    await using dir = await tempDir();
    const rows = readFileSync(join(EXAMPLE, "data", "example.jsonl"), "utf8");
    writeFileSync(join(dir.path, "example.jsonl"), rows);
    const cfg = readFileSync(join(EXAMPLE, "configs", "example_single_tool_call.yaml"), "utf8");
    writeFileSync(join(dir.path, "mine.yaml"), cfg.replaceAll("resources_servers/example_single_tool_call/data/example.jsonl", join(dir.path, "example.jsonl")));
    // 5 rows × 300 repeats = 1500 rollouts at once; 4 sockets each is more than 4096 descriptors.
    const r = await runLimited(4096, ["eval", "run", "--config", join(dir.path, "mine.yaml"), "--model-type", "scripted_model", "--split", "example", "-o", "out/r.jsonl", "--num-repeats", "300", "--concurrency", "1500", "+head_server.port=0"], dir.path);
    expect(r.code).toBe(0);
    expect(r.stderr.split("rollouts in flight need about").length - 1).toBe(1);
  }, 180_000);
});
