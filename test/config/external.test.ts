/**
 * Every upstream component config name (the checked-in catalog generated once from upstream NeMo Gym)
 * resolves either to a built-in or to the documented "external" message with its recipe (D13).
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { embeddedRoot } from "../../src/assets/embedded.ts";
import { externalRows } from "../../src/config/external-rows.ts";
import { configPathNotFound } from "../../src/config/include-tree.ts";
import { resolveSelector } from "../../src/config/selectors.ts";
import { UPSTREAM_CATALOG } from "../../src/config/upstream-catalog.gen.ts";
import { GymError } from "../../src/errors.ts";

const FIELD = { resources_servers: "resourcesServer", responses_api_models: "modelType", responses_api_agents: "agentType", environments: "environment" } as const;

describe("upstream names", () => {
  test("the catalog holds upstream's library (generated once, checked in)", () => {
    expect(Object.keys(UPSTREAM_CATALOG.resources_servers!).length).toBeGreaterThan(100);
    expect(Object.keys(UPSTREAM_CATALOG.responses_api_agents!).length).toBeGreaterThan(30);
    expect(Object.keys(UPSTREAM_CATALOG.responses_api_models!).length).toBe(8);
    expect(Object.keys(UPSTREAM_CATALOG.environments!).length).toBeGreaterThan(20);
  });

  test("every upstream config path: built in (the file is there) or the external / not-shipped message", async () => {
    const roots = [await embeddedRoot()];
    const counts = { builtin: 0, external: 0, notShipped: 0 };
    for (const [kind, comps] of Object.entries(UPSTREAM_CATALOG)) {
      for (const [name, c] of Object.entries(comps)) {
        for (const cfg of c.configs) {
          const rel = kind === "environments" ? `environments/${name}/${cfg}` : `${kind}/${name}/configs/${cfg}`;
          if (existsSync(join(roots[0]!, rel))) {
            counts.builtin++;
            continue;
          }
          const err = configPathNotFound(rel, roots);
          expect([rel, err.code]).toEqual([rel, existsSync(join(roots[0]!, kind, name)) ? "E_CONFIG_NOT_SHIPPED" : "E_NOT_BUILT_IN"]);
          if (err.code === "E_NOT_BUILT_IN") {
            expect(err.message).toContain("external: run upstream's Python server");
            expect(err.message).toContain(`--search-dir Gym`);
            counts.external++;
          } else counts.notShipped++;
        }
      }
    }
    process.stderr.write(`upstream configs: ${counts.builtin} built in, ${counts.notShipped} of built-in components not shipped, ${counts.external} external\n`);
    expect(counts.builtin).toBeGreaterThan(5);
  });

  test("every upstream component name given to its selector flag: resolves, or names the recipe", async () => {
    const roots = [await embeddedRoot()];
    for (const [kind, comps] of Object.entries(UPSTREAM_CATALOG)) {
      const field = FIELD[kind as keyof typeof FIELD];
      for (const [name, c] of Object.entries(comps)) {
        const main = kind === "environments" ? "config.yaml" : `${name}.yaml`;
        if (!c.configs.includes(main)) continue; // no default flavor upstream either
        try {
          expect(resolveSelector(field, name, roots)).toEndWith(main);
        } catch (e) {
          expect(e).toBeInstanceOf(GymError);
          expect((e as GymError).code).toMatch(/^E_(NOT_BUILT_IN|CONFIG_NOT_SHIPPED)$/);
          expect((e as Error).message).toContain(name);
        }
      }
    }
  });

  test("gym list rows: upstream components not built in follow the built-ins, marked external", () => {
    const rows = externalRows(["resources_server"], [{ name: "mcqa", kind: "resources_server", path: "", root: "", domain: null, description: null, license: null, verified: null, agent: null, num_repeats: null, error: null }]);
    expect(rows.some((r) => r.name === "mcqa")).toBe(false);
    const xlam = rows.find((r) => r.name === "xlam_fc")!;
    expect(xlam.description).toContain("external");
    expect(rows.find((r) => r.name === "bigcodebench")!.description).toContain("external only");
  });
});
