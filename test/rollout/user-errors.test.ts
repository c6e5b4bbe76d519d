import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, GymError, formatError, exitCodeOf } from "../../src/errors.ts";
import { call, E_TRACKER } from "../../src/export/types.ts";
import { pairKey } from "../../src/rollout/journal.ts";
import { rewardProfile } from "../../src/rollout/profile.ts";
import { isHttpUrl } from "../../src/util/http-url.ts";
import { tempDir } from "../helpers/tmp.ts";

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

describe("user-caused conditions are GymErrors naming where and the fix", () => {
  test("a malformed rollouts line: exit 2, file and line, no 'bug in gym'", async () => {
    await using dir = await tempDir();
    const rollouts = join(dir.path, "r.jsonl");
    const inputs = join(dir.path, "in.jsonl");
    writeFileSync(rollouts, '{"_ng_task_index": 0, "reward": 1}\nnot json\n');
    writeFileSync(inputs, '{"_ng_task_index": 0}\n');
    const e = await rejection(rewardProfile(inputs, rollouts));
    expect(e).toBeInstanceOf(GymError);
    expect(exitCodeOf(e)).toBe(2);
    const text = formatError(e);
    expect(text).toContain(`'${rollouts}' at line 2`);
    expect(text).toContain("hint:");
    expect(text).not.toContain("bug in gym");
  });

  test("a bad (task, rollout) index in a user's file is a ConfigError at file:line", async () => {
    await using dir = await tempDir();
    const rollouts = join(dir.path, "r.jsonl");
    const inputs = join(dir.path, "in.jsonl");
    writeFileSync(rollouts, '{"_ng_task_index": 0, "reward": 1}\n{"_ng_task_index": -1, "reward": 0}\n');
    writeFileSync(inputs, '{"_ng_task_index": 0}\n');
    const e = await rejection(rewardProfile(inputs, rollouts));
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).code).toBe("E_BAD_PAIR");
    expect((e as ConfigError).message).toStartWith(`${rollouts}:2: invalid (task, rollout) pair (-1, 0)`);
    expect(() => pairKey(1.5, 0)).toThrow(ConfigError);
    expect(pairKey(2, 3)).toBe(pairKey(2, 3));
    expect(pairKey(2, 3)).not.toBe(pairKey(3, 2));
  });

  test("a tracker answering an error status is a RuntimeError (E_TRACKER) with status, URL and a hint", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => (new URL(req.url).pathname === "/auth" ? new Response("bad key", { status: 401 }) : new Response("no such run", { status: 404 })),
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const auth = await rejection(call(`${base}/auth`, { method: "POST", body: "{}" }));
      expect(auth).toBeInstanceOf(GymError);
      expect((auth as GymError).code).toBe(E_TRACKER);
      expect((auth as GymError).message).toBe(`POST ${base}/auth → 401 bad key`);
      expect((auth as GymError).hint).toContain("API key");
      const missing = await rejection(call(`${base}/runs/x`));
      expect((missing as GymError).code).toBe(E_TRACKER);
      expect((missing as GymError).hint).toContain("URL");
      // A status the caller handles itself is not an error.
      expect((await call(`${base}/runs/x`, { okStatuses: [404] })).status).toBe(404);
    } finally {
      await server.stop(true);
    }
  });

  test("http(s) URL check of hub and tracker settings", () => {
    for (const ok of ["http://127.0.0.1:5000", "https://gitlab.example/api/v4/projects/1/ml/mlflow"]) expect(isHttpUrl(ok)).toBe(true);
    for (const bad of ["", "gitlab.example", "ftp://host/x", "file:///tmp/x", "http//missing-colon"]) expect(isHttpUrl(bad)).toBe(false);
  });
});
