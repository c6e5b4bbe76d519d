import { describe, expect, spyOn, test } from "bun:test";
import { join } from "node:path";
import { combineConfigPathTokens } from "../../src/config/cli-layer.ts";
import { resolveSelector, resolveSelectors, selectorRelPath, SELECTOR_KINDS } from "../../src/config/selectors.ts";
import { log } from "../../src/log.ts";
import { tempDir } from "../helpers/tmp.ts";
import { writeTree } from "./_write.ts";

describe("selector → path (§3.1)", () => {
  test("default flavors per kind", () => {
    expect(selectorRelPath(SELECTOR_KINDS.resourcesServer, "math_with_judge/dapo17k")).toBe("resources_servers/math_with_judge/configs/dapo17k.yaml");
    expect(selectorRelPath(SELECTOR_KINDS.benchmark, "finance_sec_search/config_web_search")).toBe("benchmarks/finance_sec_search/config_web_search.yaml");
    expect(selectorRelPath(SELECTOR_KINDS.environment, "circle_count")).toBe("environments/circle_count/config.yaml");
    expect(selectorRelPath(SELECTOR_KINDS.modelType, "vllm_model")).toBe("responses_api_models/vllm_model/configs/vllm_model.yaml");
    expect(selectorRelPath(SELECTOR_KINDS.agentType, "simple_agent")).toBe("responses_api_agents/simple_agent/configs/simple_agent.yaml");
  });
  test("several roots: the first wins with a warning naming the others", async () => {
    await using a = await tempDir();
    await using b = await tempDir();
    for (const r of [a, b]) writeTree(r.path, { "environments/e/config.yaml": "x: 1\n" });
    const warn = spyOn(log, "warn").mockImplementation((() => {}) as never);
    try {
      expect(resolveSelector("environment", "e", [a.path, b.path])).toBe(join(a.path, "environments/e/config.yaml"));
      expect(String(warn.mock.calls[0]?.[0])).toContain("`--environment e` matches multiple configs; using");
      expect(String(warn.mock.calls[0]?.[0])).toContain(join(b.path, "environments/e/config.yaml"));
    } finally {
      warn.mockRestore();
    }
  });
  test("a grouping directory suggests its shortest benchmark", async () => {
    await using a = await tempDir();
    writeTree(a.path, { "benchmarks/livecodebench/v5/config.yaml": "", "benchmarks/livecodebench/v5_long/config.yaml": "" });
    expect(() => resolveSelector("benchmark", "livecodebench", [a.path])).toThrow("Did you mean `livecodebench/v5`?");
  });
  test("an unknown resources server suggests the closest directory", async () => {
    await using a = await tempDir();
    writeTree(a.path, { "resources_servers/math_with_judge/configs/math_with_judge.yaml": "" });
    expect(() => resolveSelector("resourcesServer", "math_with_judg", [a.path])).toThrow("Did you mean `math_with_judge`?");
  });
  test("--agent-type is resolved but not added to config_paths; --config stays verbatim and first", async () => {
    await using a = await tempDir();
    writeTree(a.path, { "responses_api_agents/x/configs/x.yaml": "", "responses_api_models/m/configs/m.yaml": "" });
    const r = resolveSelectors({ configPaths: ["rel/mine.yaml"], modelType: "m", agentType: "x", searchDirs: [] }, [a.path]);
    expect(r.configPaths).toEqual(["rel/mine.yaml", join(a.path, "responses_api_models/m/configs/m.yaml")]);
    expect(r.agentTypePath).toBe(join(a.path, "responses_api_agents/x/configs/x.yaml"));
    expect(r.agentTypeName).toBe("x");
  });
});

describe("combining +config_paths tokens (§2.3)", () => {
  test("flag paths first, user lists merged in, other tokens kept in order; ${…} tokens untouched", () => {
    expect(combineConfigPathTokens(["/abs/a.yaml"], ["+x=1", "+config_paths=[b.yaml, ,c.yaml]", "y=2", "+config_paths=${mine}"])).toEqual([
      "+config_paths=[/abs/a.yaml,b.yaml,c.yaml]",
      "+x=1",
      "y=2",
      "+config_paths=${mine}",
    ]);
    expect(combineConfigPathTokens([], ["+a=1"])).toEqual(["+a=1"]);
  });
});

describe("unknown selector hints", () => {
  test("the hint lists the available names", async () => {
    await using a = await tempDir();
    writeTree(a.path, { "resources_servers/alpha/configs/alpha.yaml": "", "resources_servers/beta/configs/b.yaml": "", "resources_servers/empty/.keep": "" });
    let hint: string | undefined;
    try {
      resolveSelector("resourcesServer", "zzz", [a.path]);
    } catch (e) {
      hint = (e as { hint?: string }).hint;
    }
    expect(hint).toBe("available resources server names: alpha, beta");
  });
});
