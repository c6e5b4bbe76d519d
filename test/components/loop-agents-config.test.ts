/**
 * The four ported loop agents as users select them: upstream's configs (kept as fixtures, unchanged)
 * name a built-in agent and a resources server gym does not build in. Selecting that server alone is
 * the D13 "external" message; with an upstream checkout as a search root the config resolves, the
 * agent runs built in, and the resources server is the one external server to launch.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { embeddedRoot } from "../../src/assets/embedded.ts";
import "../../src/components/index.ts";
import { findBuiltin, isBuiltin } from "../../src/components/registry.ts";
import { configAccess } from "../../src/config/access.ts";
import { configPathNotFound } from "../../src/config/include-tree.ts";
import { resolveGlobalConfig } from "../../src/config/resolve.ts";
import { resolveSelector } from "../../src/config/selectors.ts";
import { GymError } from "../../src/errors.ts";
import { launchProblems } from "../../src/runtime/process/dry-run.ts";
import { tempDir } from "../helpers/tmp.ts";
import { writeTree } from "../config/_write.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/upstream-agent-configs");
/** Upstream config file → its resources server, the agent instances it declares and their implementation. */
const CASES: { file: string; resources: string; agents: [string, string][]; overrides?: string[] }[] = [
  { file: "critpt.yaml", resources: "critpt", agents: [["critpt_agent", "critpt_agent"]] },
  { file: "scicode.yaml", resources: "scicode", agents: [["scicode_agent", "scicode_agent"]] },
  { file: "finance_sec_search.yaml", resources: "finance_sec_search", agents: [["finance_agent", "finance_agent"]] },
  { file: "finance_agent_v2.yaml", resources: "finance_agent_v2", agents: [["finance_agent_v2", "finance_agent"]] },
  { file: "browsecomp_advanced_harness.yaml", resources: "browsecomp_advanced_harness", agents: [["browsecomp_advanced_harness_agent", "browsecomp_agent"]], overrides: ["+tavily_api_key=k", "+exclude_domains_file_path=x", "+search_judge_model_base_url=http://127.0.0.1:1/v1", "+search_judge_model_api_key=k", "+search_judge_model_name=m"] },
];

function errorOf(fn: () => unknown): GymError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GymError) return e;
    throw e;
  }
  throw new Error("expected an error");
}

describe("upstream configs of the ported loop agents", () => {
  for (const c of CASES) {
    test(`${c.file}: the agent is built in, ${c.resources} gives the D13 external message`, async () => {
      const roots = [await embeddedRoot()];
      for (const [, impl] of c.agents) expect(isBuiltin("responses_api_agents", impl)).toBe(true);
      expect(isBuiltin("resources_servers", c.resources)).toBe(false);
      const bySelector = errorOf(() => resolveSelector("resourcesServer", c.resources, roots));
      expect(bySelector.code).toBe("E_NOT_BUILT_IN");
      expect(bySelector.message).toContain("external: run upstream's Python server");
      const byPath = configPathNotFound(`resources_servers/${c.resources}/configs/${c.file}`, roots);
      expect([byPath.code, byPath.message.includes(`Gym/resources_servers/${c.resources}`)]).toEqual(["E_NOT_BUILT_IN", true]);
    });

    test(`${c.file} from an upstream checkout: resolves, the agent leaf passes its check, only ${c.resources} is external`, async () => {
      await using gym = await tempDir();
      await using cwd = await tempDir();
      const rel = `resources_servers/${c.resources}/configs/${c.file}`;
      writeTree(gym.path, { [rel]: readFileSync(join(FIXTURES, c.file), "utf8"), [`resources_servers/${c.resources}/app.py`]: "# upstream's server\n" });
      const resolved = await resolveGlobalConfig({ selectors: { configPaths: [rel], searchDirs: [gym.path] }, overrides: c.overrides ?? [], cwd: cwd.path, offline: true, noModel: true, skipEnvYaml: true });
      const access = configAccess(resolved);
      for (const [name, impl] of c.agents) {
        const s = resolved.servers.find((x) => x.name === name)!;
        expect([s.serverType, s.implementation]).toEqual(["responses_api_agents", impl]);
        const comp = (await findBuiltin("responses_api_agents", impl))!;
        const leaf = access.at([name, "responses_api_agents", impl]) as Record<string, unknown>;
        expect(() => comp.checkConfig!({ instanceName: name, config: leaf })).not.toThrow();
      }
      // noModel mode stands a placeholder in for policy_model; every other server is checked.
      const isPlaceholder = (name: string) => name === "policy_model";
      const external = resolved.servers.filter((s) => !isPlaceholder(s.name) && !isBuiltin(s.serverType, s.implementation));
      expect(external.map((s) => s.implementation)).toEqual([c.resources]);
      expect(external[0]!.dir).toBe(join(gym.path, "resources_servers", c.resources));
      // Nothing stands in the way of launching the agent; the external server needs only its Python.
      for (const p of launchProblems(resolved, isBuiltin).filter((p) => !p.startsWith("policy_model:"))) expect(p).toContain(c.resources);
    });
  }

  test("browsecomp_agent's own config is shipped and selectable; its resources_server is left for the user (???)", async () => {
    const roots = [await embeddedRoot()];
    expect(resolveSelector("agentType", "browsecomp_agent", roots)).toEndWith("responses_api_agents/browsecomp_agent/configs/browsecomp_agent.yaml");
  });
});
