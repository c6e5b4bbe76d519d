import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { GYM_MAIN, tempDir } from "../helpers/tmp.ts";

const EXAMPLE = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call");

/** `gym env start …` from source, killed (with its process group's children via SIGINT) if it outlives `ms`. */
async function envStart(args: string[], cwd: string, ms = 60_000): Promise<{ code: number; stderr: string; killed: boolean }> {
  const p = Bun.spawn([process.execPath, GYM_MAIN, "env", "start", ...args, "+head_server.port=0"], { cwd, stdout: "pipe", stderr: "pipe" });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    p.kill("SIGINT");
  }, ms);
  const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  return { code, stderr, killed };
}

describe("built-in component configs are checked before anything starts", () => {
  test("single_agent_turn with max_concurrent_episodes and no queue_timeout_seconds: exit 2, no server started", async () => {
    await using dir = await tempDir();
    const r = await envStart(
      [
        "--config", join(EXAMPLE, "configs", "example_single_tool_call_single_agent_turn.yaml"), "--model-type", "scripted_model",
        "++example_single_tool_call_single_agent_turn.environment_servers.single_agent_turn.max_concurrent_episodes=2",
      ],
      dir.path,
    );
    expect(r.killed).toBe(false);
    expect(r.stderr).toContain("queue_timeout_seconds is required when max_concurrent_episodes is set");
    expect(r.stderr).not.toContain("Head server listening");
    expect(r.code).toBe(2);
  }, 90_000);

  test("azure_openai_model with an empty API version: exit 2 naming the key, no server started", async () => {
    await using dir = await tempDir();
    const r = await envStart(
      ["--resources-server", "example_single_tool_call", "--model-type", "azure_openai_model", "+policy_base_url=http://127.0.0.1:9/v1", "+policy_api_key=k", "+policy_model_name=m", "+policy_api_version="],
      dir.path,
    );
    expect(r.killed).toBe(false);
    expect(r.stderr).toContain("default_query.api-version is not set");
    expect(r.stderr).toContain("policy_api_version");
    expect(r.stderr).not.toContain("Head server listening");
    expect(r.code).toBe(2);
  }, 90_000);
});
