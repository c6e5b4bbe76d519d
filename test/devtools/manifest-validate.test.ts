/** Environment manifests: the contract (upstream's example and its rules), located errors, the config mirror and --sync. */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contractProblems, loadManifest, validLicensing, type EnvironmentManifest } from "../../src/config/manifest.ts";
import { runGym, tempDir } from "../helpers/tmp.ts";

const UPSTREAM_EXAMPLE = join(import.meta.dir, "..", "fixtures", "manifest", "upstream-example.yaml");
const EXAMPLE_ROWS = join(import.meta.dir, "..", "..", "assets", "resources_servers", "example_single_tool_call", "data", "example.jsonl");

const CONFIG = `my_env_resources_server:
  resources_servers:
    example_single_tool_call:
      entrypoint: app.py
      domain: agent
my_env_simple_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server: {type: resources_servers, name: my_env_resources_server}
      model_server: {type: responses_api_models, name: policy_model}
      datasets:
      - name: example
        type: example
        jsonl_fpath: environments/my_env/data/example.jsonl
`;
const MANIFEST = `# kept by --sync
name: my_env
version: 1.0.0
kind: environment
integration_profile: custom-gym-verifier
domain: agent
description: A weather tool environment.
modality: text
licensing: Apache-2.0
authors: [Someone]
reward: {range: [0, 1], higher_is_better: true}
resources_server: example_single_tool_call
agent_server: simple_agent
model_server: policy_model
datasets:
  - name: example
    type: example
    jsonl_fpath: environments/my_env/data/example.jsonl
`;

async function workload(manifest = MANIFEST): Promise<{ root: string; path: string; dispose: () => Promise<void> }> {
  const dir = await tempDir();
  const env = join(dir.path, "environments", "my_env");
  mkdirSync(join(env, "data"), { recursive: true });
  writeFileSync(join(env, "config.yaml"), CONFIG);
  writeFileSync(join(env, "manifest.yaml"), manifest);
  cpSync(EXAMPLE_ROWS, join(env, "data", "example.jsonl"));
  return { root: dir.path, path: join(env, "manifest.yaml"), dispose: async () => { await dir[Symbol.asyncDispose](); } };
}

describe("manifest contract", () => {
  test("upstream's examples/environment_manifest.yaml is valid", () => {
    expect(loadManifest(UPSTREAM_EXAMPLE).manifest.name).toBe("example_environment");
  });

  const base = loadManifest(UPSTREAM_EXAMPLE).manifest;
  // [name, change, message] — upstream's validators, as data.
  const CASES: [string, Partial<EnvironmentManifest>, string][] = [
    ["model_server required by custom-gym-verifier", { model_server: null }, "manifest requires: model_server"],
    ["rollout_driver required by external-rollout-driver", { integration_profile: "external-rollout-driver", model_server: null }, "manifest requires: rollout_driver"],
    ["rollout_driver only for external-rollout-driver", { rollout_driver: "pkg.mod:run" }, "rollout_driver is only valid for the external-rollout-driver profile"],
    ["benchmark requires split and prompt", { kind: "benchmark" }, "manifest requires: canonical_split, standard_prompt_config"],
    ["benchmark requires a benchmark dataset", { kind: "benchmark", canonical_split: "test", standard_prompt_config: "p.yaml" }, "a benchmark manifest requires a benchmark dataset"],
    ["benchmark dataset requires prepare_script", { datasets: [{ name: "b", type: "benchmark", jsonl_fpath: "b.jsonl" }] }, "a benchmark dataset requires: prepare_script"],
    ["unique dataset names", { datasets: [{ name: "a", type: "train", jsonl_fpath: "a" }, { name: "a", type: "example", jsonl_fpath: "b" }] }, "dataset names must be unique"],
    ["unique authors", { authors: ["x", "x"] }, "authors must be unique"],
    ["ordered reward range", { reward: { range: [1, 1], higher_is_better: true } }, "reward.range must be ordered with lower < upper"],
    ["SPDX licensing", { licensing: "Apache 2" }, "licensing must be an SPDX license expression"],
  ];
  test.each(CASES)("%s", (_n, change, message) => {
    expect(contractProblems({ ...base, ...change } as EnvironmentManifest).map((p) => p.message).join("; ")).toContain(message);
  });

  test("licensing expressions", () => {
    for (const ok of ["MIT", "Apache-2.0 OR MIT", "(MIT AND BSD-3-Clause) OR GPL-2.0-only WITH Classpath-exception-2.0", "LicenseRef-x", "internal", "proprietary", "unknown"]) expect([ok, validLicensing(ok)]).toEqual([ok, true]);
    for (const bad of ["", "MIT OR", "(MIT", "MIT MIT", "Apache 2.0"]) expect([bad, validLicensing(bad)]).toEqual([bad, false]);
  });

  test("every problem names file:line:col and the field; unknown keys are refused", async () => {
    const w = await workload(MANIFEST.replace("domain: agent\n", "domain: cooking\ncolour: red\n"));
    try {
      const r = await runGym(["env", "validate", "--manifest", w.path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/manifest\.yaml:6:\d+: domain:/);
      expect(r.stderr).toMatch(/manifest\.yaml:7:\d+: colour:/);
    } finally {
      await w.dispose();
    }
  });
});

describe("gym env validate NAME | --manifest", () => {
  test("a valid workload: its datasets counted, the profile inferred (--json)", async () => {
    const w = await workload();
    try {
      const r = await runGym(["env", "validate", "my_env", "--search-dir", w.root, "--json"]);
      expect(r.code).toBe(0);
      const rep = JSON.parse(r.stdout);
      expect(rep).toMatchObject({ name: "my_env", kind: "environment", inferred_profile: "custom-gym-verifier", synchronized_fields: [], warnings: [] });
      expect(rep.datasets).toEqual([expect.objectContaining({ name: "example", type: "example", rows: 5 })]);
    } finally {
      await w.dispose();
    }
  });

  test("a stale mirror fails naming each field; --sync rewrites only those fields and keeps comments", async () => {
    const w = await workload(MANIFEST.replace("resources_server: example_single_tool_call", "resources_server: old_rs").replace("agent_server: simple_agent", "agent_server: old_agent"));
    try {
      const stale = await runGym(["env", "validate", "--manifest", w.path]);
      expect(stale.code).toBe(2);
      expect(stale.stderr).toContain('resources_server: manifest="old_rs", config="example_single_tool_call"');
      expect(stale.stderr).toContain('agent_server: manifest="old_agent", config="simple_agent"');
      const synced = await runGym(["env", "validate", "--manifest", w.path, "--sync", "--json"]);
      expect(synced.code).toBe(0);
      expect(JSON.parse(synced.stdout).synchronized_fields.sort()).toEqual(["agent_server", "resources_server"]);
      const text = readFileSync(w.path, "utf8");
      expect(text).toContain("# kept by --sync");
      expect(text).toContain("resources_server: example_single_tool_call");
      expect((await runGym(["env", "validate", "--manifest", w.path])).code).toBe(0);
    } finally {
      await w.dispose();
    }
  });

  test("identity, missing data and overrides are clear errors", async () => {
    const w = await workload(MANIFEST.replace("name: my_env", "name: other_name"));
    try {
      const r = await runGym(["env", "validate", "--manifest", w.path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("does not match its catalog path 'my_env'");
      const o = await runGym(["env", "validate", "--manifest", w.path, "+limit=3"]);
      expect(o.stderr).toContain("Manifest-backed commands do not accept runtime config overrides: limit");
      const both = await runGym(["env", "validate", "my_env", "--manifest", w.path]);
      expect(both.stderr).toContain("select a catalog name or --manifest, not both");
    } finally {
      await w.dispose();
    }
    const w2 = await workload(MANIFEST.replace("environments/my_env/data/example.jsonl", "environments/my_env/data/missing.jsonl"));
    try {
      writeFileSync(join(w2.root, "environments", "my_env", "config.yaml"), CONFIG.replace("environments/my_env/data/example.jsonl", "environments/my_env/data/missing.jsonl"));
      const r = await runGym(["env", "validate", "--manifest", w2.path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Dataset 'example' (example) was not found");
    } finally {
      await w2.dispose();
    }
  });
});
