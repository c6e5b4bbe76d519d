/** Offline hard mode (issue 20 §3): nothing but loopback (and GYM_OFFLINE_ALLOW) is reached, and a refusal is immediate. */
import { afterEach, describe, expect, test } from "bun:test";
import { HttpClient } from "../../../src/runtime/http/http-client.ts";
import { isLoopbackHost, OfflineError, offlinePolicy, reachable } from "../../../src/runtime/http/offline.ts";
import { waitForModelEndpoints } from "../../../src/runtime/process/readiness.ts";
import { runGym, tempDir } from "../../helpers/tmp.ts";

const client = () => new HttpClient({ timeoutSeconds: 10, retryBudgetSeconds: 5, limits: { limit: 0, limitPerHost: 0 }, debug: false });

afterEach(() => {
  delete process.env.GYM_OFFLINE;
  delete process.env.GYM_OFFLINE_ALLOW;
});

describe("offline policy", () => {
  test("loopback is always reachable; everything else only when allowed", () => {
    for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "api.localhost"]) expect([h, isLoopbackHost(h)]).toEqual([h, true]);
    for (const h of ["10.0.0.1", "example.com", "huggingface.co", "192.168.1.1"]) expect([h, isLoopbackHost(h)]).toEqual([h, false]);
    const on = { on: true, allow: new Set(["vllm.cluster.internal"]) };
    expect(reachable("http://127.0.0.1:8000/v1", on)).toBe(true);
    expect(reachable("http://vllm.cluster.internal:8000/v1", on)).toBe(true);
    expect(reachable("https://huggingface.co/api", on)).toBe(false);
    expect(reachable("https://huggingface.co/api", { on: false, allow: new Set() })).toBe(true);
    process.env.GYM_OFFLINE = "1";
    process.env.GYM_OFFLINE_ALLOW = "Mirror.Internal, other";
    expect(offlinePolicy()).toEqual({ on: true, allow: new Set(["mirror.internal", "other"]) });
  });

  test("the outbound client refuses a routable host at once (no connection attempt) and still reaches loopback", async () => {
    process.env.GYM_OFFLINE = "1";
    const c = client();
    // 10.255.255.1 is routable-looking and silent: a connection attempt would hang until the deadline.
    const t0 = performance.now();
    const err = await c.exchange("http://user:pw@10.255.255.1:9/v1/responses", { json: {} }).catch((e) => e);
    expect(performance.now() - t0).toBeLessThan(200);
    expect(err).toBeInstanceOf(OfflineError);
    expect(String(err.message)).toContain("10.255.255.1:9/v1/responses");
    expect(String(err.message)).not.toContain("pw");
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
    try {
      const res = await c.exchange(`http://127.0.0.1:${server.port}/x`, { json: {} });
      expect(res.status).toBe(200);
    } finally {
      server.stop(true);
    }
  });

  test("model endpoints are checked before any server waits on one, all named at once", async () => {
    process.env.GYM_OFFLINE = "1";
    const io = { info: () => {}, warn: () => {} };
    const err = await waitForModelEndpoints([{ url: "https://api.openai.com/v1", key: "policy_model.openai_base_url" }, { url: "http://10.0.0.7:8000/v1", key: "judge.base_url" }, { url: "http://127.0.0.1:1/v1", key: "local.base_url" }], 0, io).catch((e) => e);
    expect(err).toBeInstanceOf(OfflineError);
    expect(err.urls).toEqual(["https://api.openai.com/v1 (policy_model.openai_base_url)", "http://10.0.0.7:8000/v1 (judge.base_url)"]);
  });
});

describe("gym … --offline", () => {
  test("eval prepare lists every source it would have fetched and how to stage them, exit 2, no network", async () => {
    await using home = await tempDir();
    const env = { HOME: home.path, XDG_CACHE_HOME: home.path };
    const t0 = performance.now();
    const r = await runGym(["eval", "prepare", "--benchmark", "gsm8k", "--benchmark", "gpqa", "--offline", "+hf_token=hf_x"], { cwd: home.path, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("offline mode (--offline / GYM_OFFLINE=1)");
    expect(r.stderr).toContain("gsm8k: https://raw.githubusercontent.com/openai/grade-school-math");
    expect(r.stderr).toContain("gpqa: hf:Idavidrein/gpqa");
    expect(r.stderr).toContain("gym eval prepare --all --bundle benchmarks.tar");
    expect(performance.now() - t0).toBeLessThan(30_000);
    const viaEnv = await runGym(["eval", "prepare", "--benchmark", "gsm8k"], { cwd: home.path, env: { ...env, GYM_OFFLINE: "1" } });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stderr).toContain("offline mode");
  }, 60_000);
});
