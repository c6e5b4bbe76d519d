/** A Ctrl+C (or SIGTERM) while `gym eval run` prepares its data ends the run at once: exit 130/143, one line, the output lock released. */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { GYM_MAIN, tempDir } from "../helpers/tmp.ts";

setDefaultTimeout(60_000);

function envVars(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

describe("gym eval run stopped during data preparation", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    test(`${signal} while a dataset download hangs: exit ${code}, no server started, lock released`, async () => {
      await using dir = await tempDir();
      // A Hugging Face endpoint that takes the download request and never answers.
      const asked = Promise.withResolvers<void>();
      const hub = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        idleTimeout: 0,
        fetch: () => {
          asked.resolve();
          return new Promise<Response>(() => {});
        },
      });
      try {
        const missing = join(dir.path, "data", "val.jsonl");
        const args = [
          "eval", "run", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "--split", "validation",
          "-o", "out/r.jsonl", "+head_server.port=0", "+hf_token=t", `+hf_endpoint=http://127.0.0.1:${hub.port}`,
          `example_single_tool_call_simple_agent.responses_api_agents.simple_agent.datasets=[{name: v, type: validation, license: MIT, jsonl_fpath: ${missing}, huggingface_identifier: {repo_id: org/val, artifact_fpath: val.jsonl}}]`,
        ];
        const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args], { cwd: dir.path, env: envVars(), stdout: "ignore", stderr: "pipe" });
        const stderr = new Response(proc.stderr).text();
        // Signal once the download is really waiting on the hub (an event, not a guess).
        const first = await Promise.race([asked.promise.then(() => "asked" as const), proc.exited.then(() => "exited" as const)]);
        expect(first).toBe("asked");
        proc.kill(signal);
        expect(await proc.exited).toBe(code);
        const text = await stderr;
        expect(text).toContain("Stopped during data preparation: nothing was collected");
        expect(text).not.toContain("bug in gym");
        expect(text).not.toContain("Head server listening");
        expect(existsSync(join(dir.path, "out", "r.gym-lock"))).toBe(false);
      } finally {
        await hub.stop(true);
      }
    });
  }
});
