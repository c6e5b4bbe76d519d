/** Hydra-style composition of submit configs (spec submit.md §2, §2.1, §13.1). */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkConfigPath, composeSubmit } from "../../src/submit/compose.ts";
import { tempDir } from "../helpers/tmp.ts";

const MAIN = `defaults:
  - compute: slurm
  - _self_
_images:
  vllm: nvcr.io/vllm:1
services:
  policy: {type: vllm, container: "\${_images.vllm}", model: m}
driver:
  policy_host: \${oc.env:HEAD_NODE_IP}
  benchmarks: {b: {}}
job: {output_path: /runs}
`;

async function setup() {
  const dir = await tempDir("gym-compose-");
  mkdirSync(join(dir.path, "compute"));
  writeFileSync(join(dir.path, "compute", "slurm.yaml"), "cluster: {type: slurm, account: a}\n");
  writeFileSync(join(dir.path, "compute", "other.yaml"), "cluster: {type: slurm, account: other}\n");
  writeFileSync(join(dir.path, "submit.yaml"), MAIN);
  return dir;
}

const env = (n: string) => (n === "HEAD_NODE_IP" ? "10.0.0.1" : undefined);

describe("composeSubmit", () => {
  test("defaults list, scratch interpolation and removal, policy_host left for the driver node", async () => {
    await using dir = await setup();
    const d = composeSubmit(join(dir.path, "submit.yaml"), [], env) as Record<string, any>;
    expect(d.compute).toEqual({ cluster: { type: "slurm", account: "a" } });
    expect(d.services.policy.container).toBe("nvcr.io/vllm:1");
    expect(d._images).toBeUndefined();
    expect(d.driver.policy_host).toBe("${oc.env:HEAD_NODE_IP}");
  });
  test("overrides: group swap, set, add, scratch leaf", async () => {
    await using dir = await setup();
    const d = composeSubmit(join(dir.path, "submit.yaml"), ["compute=other", "job.output_path=/x", "+driver.env.FOO=lit:bar", "_images.vllm=img:2"], env) as Record<string, any>;
    expect(d.compute.cluster.account).toBe("other");
    expect(d.job.output_path).toBe("/x");
    expect(d.driver.env).toEqual({ FOO: "lit:bar" });
    expect(d.services.policy.container).toBe("img:2");
  });
  test("override errors", async () => {
    await using dir = await setup();
    const f = join(dir.path, "submit.yaml");
    expect(() => composeSubmit(f, ["+_images.x=1"], env)).toThrow("Refusing override '+_images.x=...': scratch namespace '_images' must be fully defined in the config file");
    expect(() => composeSubmit(f, ["++_new.k=1"], env)).toThrow("scratch namespace '_new'");
    expect(() => composeSubmit(f, ["_images.nope=1"], env)).toThrow("nope");
    expect(() => composeSubmit(f, ["job.nope=1"], env)).toThrow("key 'job.nope' is not in the config");
    expect(() => composeSubmit(f, ["+job.output_path=/y"], env)).toThrow();
  });
  test("config path checks come first", async () => {
    await using dir = await setup();
    expect(() => checkConfigPath("missing.yaml", dir.path)).toThrow("Submit config 'missing.yaml' was not found");
    expect(() => checkConfigPath("compute", dir.path)).toThrow("Submit config 'compute' is a directory, not a file");
  });
});

describe("resolved-config.yaml round trip", () => {
  test("policy_host with oc.env stays unresolved through the injected URL and re-validates", async () => {
    const { validateSubmit } = await import("../../src/submit/validate.ts");
    const { resolvedYaml } = await import("../../src/submit/records.ts");
    await using dir = await setup();
    const lookup = (n: string) => env(n);
    const first = validateSubmit(composeSubmit(join(dir.path, "submit.yaml"), ["+driver.policy_model=policy"], lookup), "submit.yaml", { lookupEnv: lookup });
    expect(first.config.driver.benchmarks.b!.run.policy_base_url).toBe("http://${oc.env:HEAD_NODE_IP}:8000/v1");
    const text = resolvedYaml(first.config);
    writeFileSync(join(dir.path, "resolved.yaml"), text);
    const second = validateSubmit(composeSubmit(join(dir.path, "resolved.yaml"), [], lookup), "resolved.yaml", { lookupEnv: lookup });
    expect(resolvedYaml(second.config)).toBe(text);
  });
});
