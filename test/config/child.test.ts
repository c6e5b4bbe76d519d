import { describe, expect, test } from "bun:test";
import { loadChildConfig, serializeConfigDict } from "../../src/config/child.ts";
import { parseConfigDict } from "../../src/config/serialize.ts";

describe("child hand-off (D3)", () => {
  const dict = {
    policy_base_url: "http://h/v1",
    policy_model: { responses_api_models: { openai_model: { entrypoint: "app.py", base_url: "${policy_base_url}", port: 123, flag: "yes" } } },
    other: { resources_servers: { r: { entrypoint: "app.py", home: "${oc.env:GYM_CHILD_TEST_VAR,fallback}" } } },
  };
  test("serialization keeps interpolations and round-trips YAML-1.1-sensitive strings", () => {
    const text = serializeConfigDict(dict);
    expect(text).toContain("${policy_base_url}");
    expect(parseConfigDict(text)).toEqual(dict);
  });
  test("the child resolves only its own leaf and gets `name` injected", () => {
    const c = loadChildConfig(serializeConfigDict(dict), "policy_model");
    expect(c.serverType).toBe("responses_api_models");
    expect(c.implementation).toBe("openai_model");
    expect(c.leaf).toEqual({ entrypoint: "app.py", base_url: "http://h/v1", port: 123, flag: "yes", name: "policy_model" });
    expect((c.global.policy_model as { responses_api_models: { openai_model: { base_url: string } } }).responses_api_models.openai_model.base_url).toBe("${policy_base_url}");
    expect(loadChildConfig(serializeConfigDict(dict), "other").leaf.home).toBe("fallback");
  });
  test("an unknown instance name is a clear error", () => {
    expect(() => loadChildConfig(serializeConfigDict(dict), "nope")).toThrow(/NEMO_GYM_CONFIG_PATH names 'nope'/);
  });
});

describe("inherited config", () => {
  test("NEMO_GYM_CONFIG_DICT is used as-is when set", async () => {
    const { inheritedGlobalConfig } = await import("../../src/config/child.ts");
    const before = process.env.NEMO_GYM_CONFIG_DICT;
    try {
      delete process.env.NEMO_GYM_CONFIG_DICT;
      expect(inheritedGlobalConfig()).toBeUndefined();
      process.env.NEMO_GYM_CONFIG_DICT = serializeConfigDict({ a: "${b}", b: 1 });
      process.env.NEMO_GYM_CONFIG_PATH = "a";
      expect(inheritedGlobalConfig()).toEqual({ dict: { a: "${b}", b: 1 }, instanceName: "a" });
    } finally {
      if (before === undefined) delete process.env.NEMO_GYM_CONFIG_DICT;
      else process.env.NEMO_GYM_CONFIG_DICT = before;
      delete process.env.NEMO_GYM_CONFIG_PATH;
    }
  });
});
