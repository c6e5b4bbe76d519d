/**
 * A dead destination (--no-serve with nothing listening): the run stops in seconds naming the
 * server and URL, instead of every row spending its whole retry budget; and the end-of-run summary
 * says how many rollouts failed and why.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { RuntimeError } from "../../src/errors.ts";
import { resetBreakers } from "../../src/runtime/http/breaker.ts";
import { rolloutConfigFrom } from "../../src/rollout/config.ts";
import { runRollouts } from "../../src/rollout/driver.ts";
import { targetsFromConfig } from "../../src/rollout/targets.ts";
import { configFor, startEnvServer, writeInput } from "../fixtures/rollout/env-server.ts";
import { freePort, readJsonl, tempDir } from "../helpers/tmp.ts";

setDefaultTimeout(90_000);

/** Run `fn` with stderr captured. */
async function withStderr<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    return { value: await fn(), stderr };
  } catch (error) {
    return { error, stderr };
  } finally {
    process.stderr.write = write;
  }
}

describe("dead destination", () => {
  test("refused connections across rollouts stop the run fast, naming the server and URL (exit 1), rows left for --resume", async () => {
    resetBreakers();
    await using dir = await tempDir();
    const input = join(dir.path, "in.jsonl");
    await writeInput(input, 200);
    const port = freePort();
    // The default 120 s retry budget: before, each of 200 rows spent it (≈ 200 / 16 × 120 s).
    const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out.jsonl"), num_samples_in_parallel: 16 });
    const t0 = performance.now();
    const { error } = await withStderr(() => runRollouts(cfg, { targets: targetsFromConfig(configFor(port)) }));
    const seconds = (performance.now() - t0) / 1000;
    expect(error).toBeInstanceOf(RuntimeError);
    const e = error as RuntimeError;
    expect(e.exitCode).toBe(1);
    expect(e.message).toContain("'my_agent__legacy_agent'");
    expect(e.message).toContain(`http://127.0.0.1:${port}/run`);
    expect(e.message).toContain("nothing is listening");
    expect(e.hint).toContain("--resume");
    expect(seconds).toBeLessThan(60);
    // Most rows were never attempted: they are not burnt as failures.
    expect(readJsonl(join(dir.path, "out_failures.jsonl")).length).toBeLessThan(100);
  });

  test("the summary of a finished run says how many rollouts failed, by type, with the first error of each", async () => {
    resetBreakers();
    await using dir = await tempDir();
    const server = startEnvServer((row) => (Number(row._ng_task_index) % 4 === 1 ? { kind: "status", status: 500, body: '"boom in the tool"' } : { kind: "ok" }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 8);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out.jsonl") });
      const { value, stderr } = await withStderr(() => runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)) }));
      expect(value!.exitCode).toBe(0);
      expect(value!.failed).toBe(2);
      expect(stderr).toContain("Failed rollouts this run: infra: 2");
      expect(stderr).toMatch(/first error of each type:\n {2}infra: /);
    } finally {
      await server.stop();
    }
  });

  test("require_complete: infra failures make the run fail with exit 1 and the failures by type", async () => {
    resetBreakers();
    await using dir = await tempDir();
    const server = startEnvServer((row) => (Number(row._ng_task_index) === 0 ? { kind: "status", status: 500 } : { kind: "ok" }));
    try {
      const input = join(dir.path, "in.jsonl");
      await writeInput(input, 4);
      const cfg = rolloutConfigFrom({ input_jsonl_fpath: input, output_jsonl_fpath: join(dir.path, "out.jsonl"), require_complete: true });
      const { error } = await withStderr(() => runRollouts(cfg, { targets: targetsFromConfig(configFor(server.port)) }));
      expect(error).toBeInstanceOf(RuntimeError);
      expect((error as RuntimeError).exitCode).toBe(1);
      expect((error as RuntimeError).message).toContain("3/4 samples completed");
      expect((error as RuntimeError).hint).toContain("infra: 1");
    } finally {
      await server.stop();
    }
  });
});
