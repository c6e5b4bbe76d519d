import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GYM_MAIN, readJsonl, tempDir } from "../helpers/tmp.ts";

/**
 * Run gym from source as if invoked under a legacy name: a wrapper calls main() with the alias as
 * the program name, so process.argv holds only the user's arguments (as under an `ng_*` symlink).
 */
async function runAs(alias: string, args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  const wrapper = join(cwd, `${alias}.ts`);
  writeFileSync(wrapper, `import { main } from ${JSON.stringify(GYM_MAIN)};\nprocess.exit(await main(${JSON.stringify(alias)}, process.argv.slice(2)));\n`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const p = Bun.spawn([process.execPath, wrapper, ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  return { code, stderr };
}

describe("legacy ng_* aliases run their command end to end", () => {
  // The default concurrency makes the driver re-spawn itself (D16); the copy must run the
  // same gym command, not the bare user arguments (`invalid choice: '+agent_name=…'`).
  test("ng_e2e_collect_rollouts with upstream-style + overrides collects rows", async () => {
    await using dir = await tempDir();
    const r = await runAs(
      "ng_e2e_collect_rollouts",
      ["+config_paths=[resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml,responses_api_models/scripted_model/configs/scripted_model.yaml]", "+split=example", "+output_jsonl_fpath=out/r.jsonl", "+head_server.port=0"],
      dir.path,
    );
    expect(r.stderr).not.toContain("invalid choice");
    expect(r.stderr).toContain("NeMo Gym finished!");
    expect(r.code).toBe(0);
    expect(readJsonl(join(dir.path, "out", "r.jsonl")).length).toBe(5);
  }, 120_000);

  test("ng_collect_rollouts reaches the rollout driver (the re-spawned copy keeps `eval run --no-serve`)", async () => {
    await using dir = await tempDir();
    writeFileSync(join(dir.path, "in.jsonl"), `${JSON.stringify({ responses_create_params: { input: "hi" } })}\n`);
    // No head server runs on this port: the driver must get as far as trying to reach it.
    const r = await runAs("ng_collect_rollouts", ["+agent_name=simple_agent", "+input_jsonl_fpath=in.jsonl", "+output_jsonl_fpath=o.jsonl", "+head_server.host=127.0.0.1", "+head_server.port=1"], dir.path);
    expect(r.stderr).not.toContain("invalid choice");
    expect(r.stderr).toMatch(/head server|127\.0\.0\.1:1/i);
  }, 60_000);
});
