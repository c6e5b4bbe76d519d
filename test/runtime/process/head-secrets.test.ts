/** D39: the head serves no secrets; children still get the real ones through their environment; cookies are not forgeable. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import "../../../src/components/index.ts";
import { isBuiltin } from "../../../src/components/registry.ts";
import { Supervisor } from "../../../src/runtime/process/supervisor.ts";
import { childEnv } from "../../../src/runtime/process/spawn.ts";
import { CookieSigner, SessionCodec } from "../../../src/runtime/http/session.ts";
import { tempDir } from "../../helpers/tmp.ts";
import { getJson, resolvedConfig } from "../_env.ts";

setDefaultTimeout(30_000);

const auth: string[] = [];
const endpoint = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    auth.push(req.headers.get("authorization") ?? "");
    const body = (await req.json()) as Record<string, unknown>;
    return Response.json({ id: "c", object: "chat.completion", created: 5, model: body.model, choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  },
});
afterAll(() => endpoint.stop(true));

describe("head server secrets (D39)", () => {
  test("/global_config_dict_yaml and /server_instances mask secret keys and URL credentials; the model child still authenticates", async () => {
    await using logs = await tempDir();
    const sup = new Supervisor({
      resolved: resolvedConfig(
        [{ name: "policy", type: "responses_api_models", impl: "vllm_model", leaf: { base_url: `http://127.0.0.1:${endpoint.port}/v1`, api_key: "${policy_api_key}", model: "m" } }],
        { nemo_gym_log_dir: logs.path, policy_api_key: "sk-live-SECRET-1", judge_base_url: "http://alice:pw-SECRET-2@127.0.0.1:9/v1?api_key=SECRET-3", hf_token: "hf_SECRET-4" },
      ),
      isBuiltin,
      out: () => {},
    });
    try {
      await sup.start();
      const head = `http://127.0.0.1:${sup.head.port}`;
      const cfg = await getJson(`${head}/global_config_dict_yaml`);
      expect(cfg.status).toBe(200);
      for (const s of ["SECRET-1", "SECRET-2", "SECRET-3", "SECRET-4"]) expect(cfg.text).not.toContain(s);
      expect(cfg.body as string).toContain('policy_api_key: "****"');
      expect(cfg.body as string).toContain("http://****@127.0.0.1:9/v1?api_key=****");
      const instances = await getJson(`${head}/server_instances`);
      expect(instances.text).not.toContain("SECRET");
      const url = (instances.body as { url: string }[])[0]!.url;
      // The child got the real key from its environment, not from the head.
      const r = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }) });
      expect(r.status).toBe(200);
      expect(auth.at(-1)).toBe("Bearer sk-live-SECRET-1");
    } finally {
      await sup.shutdown({ quiet: true });
    }
  });
});

describe("session cookies (D39)", () => {
  test("signed with a random per-run secret: upstream's public-name signature is rejected", () => {
    const codec = new SessionCodec("SimpleWeatherResourcesServer", "weather");
    const id = "11111111-2222-3333-4444-555555555555";
    const payload = Buffer.from(JSON.stringify({ session_id: id })).toString("base64");
    const forged = new CookieSigner("SimpleWeatherResourcesServer___weather").sign(payload);
    expect(codec.read({ SimpleWeatherResourcesServer___weather: forged })).toBeUndefined();
    // The wire format is unchanged: value.timestamp.signature over base64 JSON.
    const value = codec.setCookie(id).split(";")[0]!.split("=").slice(1).join("=");
    expect(value.split(".").length).toBe(3);
    expect(codec.read({ SimpleWeatherResourcesServer___weather: value })).toBe(id);
    // Another run (another secret) does not accept it either.
    expect(new SessionCodec("SimpleWeatherResourcesServer", "weather", "another-run").read({ SimpleWeatherResourcesServer___weather: value })).toBeUndefined();
  });

  test("every child of a run gets the same secret through its environment", () => {
    const a = childEnv({ configYaml: "{}", instance: "a", maxHttpRequests: 256, dict: {} });
    const b = childEnv({ configYaml: "{}", instance: "b", maxHttpRequests: 256, dict: {} });
    expect(a.GYM_SESSION_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(b.GYM_SESSION_SECRET).toBe(a.GYM_SESSION_SECRET!);
    const child = new SessionCodec("X", "y", a.GYM_SESSION_SECRET);
    const parent = new SessionCodec("X", "y");
    expect(child.read({ X___y: parent.setCookie("s-1").split(";")[0]!.slice("X___y=".length) })).toBe("s-1");
  });
});
