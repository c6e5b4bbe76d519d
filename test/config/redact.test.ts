import { describe, expect, test } from "bun:test";
import { isSecretKey, keySegments, MASK, maskSecretValues, redactSecrets } from "../../src/config/redact.ts";

describe("secret keys (D10)", () => {
  test.each([
    "api_key", "openai_api_key", "OPENAI_API_KEY", "wandb_api_key", "apiKey", "hf_token", "HF_TOKEN", "otel_token",
    "mlflow_tracking_token", "client_secret", "password", "Authorization", "token", "accessToken", "x-auth-token",
  ])("%s is secret", (k) => expect(isSecretKey(k)).toBe(true));
  test.each(["max_output_tokens", "max_tokens", "tokenizer", "session_key", "monkey_patch", "policy_base_url", "name"])("%s is not secret", (k) =>
    expect(isSecretKey(k)).toBe(false),
  );
  test("word segments split on punctuation and lower→upper boundaries", () => {
    expect(keySegments("otelToken_value-x.y")).toEqual(["otel", "token", "value", "x", "y"]);
  });
});

describe("masking shape (§8.2)", () => {
  test("scalars and lists under secret keys are masked; maps under them are walked; ordinary lists keep scalars", () => {
    const input = {
      policy_api_key: "sk-1",
      tokens_list: ["a"],
      hf_token: ["a", "b"],
      auth: { password: 3, user: "me" },
      secret_block: { nested_ok: "visible", api_key: "k" },
      servers: [{ api_key: "x", port: 1 }, "plain"],
      unset_token: null,
      max_output_tokens: 512,
    };
    expect(redactSecrets(input) as unknown).toEqual({
      policy_api_key: MASK,
      tokens_list: ["a"],
      hf_token: [MASK, MASK],
      auth: { password: MASK, user: "me" },
      secret_block: { nested_ok: "visible", api_key: MASK },
      servers: [{ api_key: MASK, port: 1 }, "plain"],
      unset_token: null,
      max_output_tokens: 512,
    });
    expect(input.policy_api_key).toBe("sk-1");
  });
  test("masking happens before interpolation: a reference under a secret key is masked", () => {
    expect(redactSecrets({ m: { openai_api_key: "${policy_api_key}" } })).toEqual({ m: { openai_api_key: MASK } });
  });
  test("known secret values are masked inside free text", () => {
    expect(maskSecretValues("curl -H 'x: abcd1234' url", ["abcd1234"])).toBe("curl -H 'x: ****' url");
  });
});
