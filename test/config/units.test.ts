import { describe, expect, test } from "bun:test";
import { almostServerReport } from "../../src/config/almost-servers.ts";
import { foldDummyModels } from "../../src/config/dummy-model.ts";
import { absolutePath, defaultHost } from "../../src/config/defaults.ts";
import { effectiveLimit, workersOf } from "../../src/config/network-keys.ts";
import { looksLikeServer } from "../../src/config/servers.ts";

describe("per-worker pool limits (§7.3)", () => {
  test("floor division, 0 stays unlimited, W from num_workers > 1", () => {
    expect(effectiveLimit(1024, 3)).toBe(341);
    expect(effectiveLimit(0, 8)).toBe(0);
    expect(effectiveLimit(3, 4)).toBe(0);
    expect(workersOf({ num_workers: 4 })).toBe(4);
    expect(workersOf({ num_workers: 1 })).toBe(1);
    expect(workersOf({})).toBe(1);
  });
});

describe("hosts and paths (§4.9)", () => {
  test("default host: default_host when set, else loopback; offline never resolves the machine IP", async () => {
    expect(await defaultHost(false, "10.1.2.3")).toBe("10.1.2.3");
    expect(await defaultHost(false, "")).toBe("127.0.0.1");
    expect(await defaultHost(true, "10.1.2.3", true)).toBe("10.1.2.3");
    expect(await defaultHost(true, undefined)).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });
  test("absolutePath keeps a non-existent tail under the real path of its existing head", () => {
    expect(absolutePath("a/b", "/tmp")).toMatch(/\/a\/b$/);
    expect(absolutePath("/x/../y", "/")).toBe("/y");
  });
});

describe("dummy model folding (§4.8)", () => {
  test("dummy_model is dropped in favour of a real implementation, its fields merged under", () => {
    const d = { policy_model: { responses_api_models: { dummy_model: { entrypoint: "app.py", a: 1 }, real: { entrypoint: "x.py", b: 2 } } } };
    foldDummyModels(d);
    expect(d.policy_model.responses_api_models).toEqual({ real: { entrypoint: "x.py", a: 1, b: 2 } } as never);
  });
  test("a lone dummy_model stays", () => {
    const d = { policy_model: { responses_api_models: { dummy_model: { entrypoint: "app.py" } } } };
    foldDummyModels(d);
    expect(Object.keys(d.policy_model.responses_api_models)).toEqual(["dummy_model"]);
  });
});

describe("almost-servers (§6.3)", () => {
  test("looks like a server: a type key holding a map with an entrypoint child", () => {
    expect(looksLikeServer({ resources_servers: { x: { entrypoint: "app.py" } } })).toBe(true);
    expect(looksLikeServer({ resources_servers: { x: { domain: "math" } } })).toBe(false);
    expect(looksLikeServer({ other: { x: { entrypoint: "app.py" } } })).toBe(false);
  });
  test("the report has the banner and one block per server", () => {
    const text = almostServerReport([{ name: "bad", errors: ["A -> b: c"] }]);
    expect(text).toContain("Configuration Warnings: Almost-Servers Detected");
    expect(text).toContain("Almost-Server Detected: 'bad'\nThis server configuration failed validation:\n  - A -> b: c\nThis server will NOT be started.");
  });
});

describe("validation reports every problem", () => {
  test("more than TypeBox's default 8 errors come back", async () => {
    const Type = (await import("typebox")).default;
    const { check } = await import("../../src/config/validate.ts");
    const schema = Type.Object(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, Type.Boolean()])));
    const value = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, "x"]));
    expect(check(schema, value)).toHaveLength(12);
  });
});
