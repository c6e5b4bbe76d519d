/** Every validation rule of spec submit.md §3 and §5.1, as a table: mutation → message. */
import { describe, expect, test } from "bun:test";
import { baseConfig, check, errorOf } from "./_helpers.ts";

type Cfg = Record<string, any>;
const pools2 = (c: Cfg) => {
  c.compute.cluster.node_pools = { a: { partition: "p", gpus_per_node: 8 }, b: { partition: "p", gpus_per_node: 8 } };
};
const pd = (c: Cfg, extra: Cfg = {}) => {
  pools2(c);
  c.services = { pol: { type: "vllm_pd", container: "c", model: "m", prefill: { node_pool: "a", tensor_parallel_size: 8 }, decode: { node_pool: "b", tensor_parallel_size: 8 }, ...extra } };
  c.driver.policy_model = "pol";
};

const rules: [string, (c: Cfg) => void, string][] = [
  ["missing top-level sections", (c) => { delete c.services; delete c.job; }, "missing required configuration: services, job"],
  ["unknown top-level key", (c) => { c.foo = 1; }, "foo (Extra inputs are not permitted)"],
  ["unknown nested key", (c) => { c.services.policy.bogus = 1; }, "services.policy.vllm.bogus (Extra inputs are not permitted)"],
  ["wrong type", (c) => { c.job.output_path = 5; }, "job.output_path (Input should be a valid string)"],
  ["unknown service type", (c) => { c.services.policy.type = "sglang"; }, "Input tag 'sglang' found using 'type'"],
  ["PD missing tier", (c) => { pd(c); delete c.services.pol.decode; }, "services.pol.vllm_pd.decode"],
  ["container required under pyxis", (c) => { delete c.services.policy.container; }, "services.policy.vllm.container"],
  ["number_of_instances >= 1", (c) => { c.services.policy.number_of_instances = 0; }, "number_of_instances must be >= 1, got 0"],
  ["PD-only field on vllm", (c) => { c.services.policy.server_per_node = true; }, "services.policy.vllm.server_per_node (Extra inputs are not permitted)"],
  ["removed distributed_backend", (c) => { c.services.policy.distributed_backend = "ray"; }, "distributed_backend (Extra inputs are not permitted)"],
  ["ray obsolete field", (c) => { c.services.r = { type: "ray", container: "r", mode: "x" }; }, "services.r.ray.mode (Extra inputs are not permitted)"],
  ["env without prefix", (c) => { c.services.policy.env = { A: "plain" }; }, "env['A']: 'plain' must start with one of the prefixes 'lit:', 'host:', or 'runtime:'"],
  ["env bad var name", (c) => { c.driver.env = { A: "host:1BAD" }; }, "env['A']: '1BAD' is not a valid environment variable name for host:1BAD"],
  ["host var unset", (c) => { c.driver.env = { A: "host:NOPE_UNSET" }; }, "env['A'] references host:NOPE_UNSET, but 'NOPE_UNSET' is not set in the submitting shell's environment"],
  ["otel.token_env name", (c) => { c.otel.token_env = "bad-name"; }, "otel.token_env: 'bad-name' is not a valid environment variable name"],
  ["otel interval >= 1", (c) => { c.otel.scrape_interval_seconds = 0; }, "otel.scrape_interval_seconds (Input should be greater than or equal to 1)"],
  ["two compute entries", (c) => { c.compute.other = { type: "slurm", account: "x" }; }, "Multiple compute resources are not supported yet (cluster, other)."],
  ["placement mismatch", (c) => { c.services.policy.placement = "elsewhere"; }, "Service 'policy' placement 'elsewhere' does not match any compute resource"],
  ["node_pool unknown", (c) => { c.services.policy.node_pool = "nope"; }, "Service 'policy' node_pool 'nope' does not match any node pool of compute 'cluster' ('gpu')"],
  ["node_pool with no pools", (c) => { c.compute.cluster.node_pools = {}; c.services.policy.node_pool = "x"; }, "('none declared')"],
  ["ray node_pools unknown", (c) => { c.services.r = { type: "ray", container: "r", node_pools: ["zz"] }; }, "Service 'r' node_pools ['zz'] do not match any node pool of compute 'cluster'"],
  ["ray with node_pool", (c) => { c.services.r = { type: "ray", container: "r", node_pool: "gpu" }; }, "A ray service spans `node_pools`, not a single `node_pool`; use node_pools: [gpu]."],
  ["ray pool twice", (c) => { c.services.r = { type: "ray", container: "r", node_pools: ["gpu", "gpu"] }; }, "A ray service's node_pools lists a pool more than once"],
  ["ray resources unspanned", (c) => { c.services.r = { type: "ray", container: "r", resources: { gpu: { x: 1 } } }; }, "A ray service sets resources for gpu, which it does not span"],
  ["PD tier name taken", (c) => { pd(c); c.services["pol-prefill"] = { type: "vllm", container: "c", model: "m", node_pool: "a" }; }, "vllm_pd service 'pol' deploys its tiers as pol-prefill, pol-decode, but services already has pol-prefill. Rename one."],
  ["server_per_node on a tier", (c) => { pd(c); c.services.pol.prefill.server_per_node = true; }, "server_per_node is set on the prefill tier. Set it on the vllm_pd service itself"],
  ["nixl port on a tier", (c) => { pd(c); c.services.pol.decode.nixl_side_channel_port = 1; }, "nixl_side_channel_port is set on the decode tier."],
  ["tier without node_pool", (c) => { pd(c); delete c.services.pol.prefill.node_pool; }, "Service 'pol-prefill' is a prefill/decode tier without a node_pool."],
  ["tiers share rpc port", (c) => { pd(c); c.services.pol.decode.data_parallel_rpc_port = 13345; }, "Services 'pol-prefill' and 'pol-decode' share data_parallel_rpc_port 13345."],
  ["server_per_node needs N=1", (c) => { pd(c, { server_per_node: true }); c.services.pol.decode.number_of_instances = 2; c.services.pol.decode.tensor_parallel_size = 1; }, "Service 'pol-decode' runs one server per node (server_per_node)"],
  ["router pinned off the first pool", (c) => { pd(c, { node_pool: "b" }); }, "vllm_pd service 'pol' pins its router to node_pool 'b', but the driver reaches it over localhost and runs on the first node. Pin it to 'a' or leave node_pool unset."],
  ["kv field on a tier", (c) => { pd(c); c.services.pol.prefill.kv_role = "x"; }, "prefill.kv_role (Extra inputs are not permitted)"],
  ["policy_model unknown", (c) => { c.services.zed = { type: "ray", container: "r" }; c.driver.policy_model = "nope"; }, "driver.policy_model 'nope' does not match any service (policy, zed)."],
  ["policy keys already in run", (c) => { c.driver.benchmarks.b1.run.policy_base_url = "http://x/v1"; }, "Benchmark 'b1' run config already sets ['policy_base_url'] but driver.policy_model is also set. Remove one"],
  ["command with run", (c) => { c.driver.benchmarks.b1.command = "echo"; }, "A benchmark sets both `command` and `run`"],
  ["command with resumable", (c) => { c.driver.benchmarks.b1 = { command: "echo", resumable: true }; }, "A benchmark sets both `command` and `resumable`"],
  ["mounts under container_runtime none", (c) => { c.compute.cluster.container_runtime = "none"; c.driver.mounts = ["/a:/a"]; }, "compute 'cluster' has container_runtime: none, so mounts are not allowed (driver: ['/a:/a']). Remove them or use container_runtime: pyxis."],
  ["tier mounts under none", (c) => { pd(c); c.compute.cluster.container_runtime = "none"; c.services.pol.decode.mounts = ["/m"]; }, "(services.pol.decode: ['/m'])"],
  ["DP divisibility", (c) => { c.compute.cluster.node_pools.gpu.nodes = 2; c.services.policy.number_of_instances = 3; }, "Service 'policy' has number_of_instances=3, which must be evenly divisible by the number of nodes (2)"],
  ["GPU footprint", (c) => { c.services.policy.tensor_parallel_size = 2; }, "Service 'policy' requires 2 GPUs (tensor_parallel_size=2 x pipeline_parallel_size=1 x number_of_instances=1), which exceeds the node pool's gpus_per_node (1) on compute 'cluster'."],
];

describe("validation rules", () => {
  test("the base config is valid", () => {
    expect(errorOf(baseConfig())).toBe("");
  });
  test.each(rules)("%s", (_name, mutate, want) => {
    const c = baseConfig();
    mutate(c);
    const msg = errorOf(c);
    expect(msg).toContain("Submit config 'submit.yaml' is invalid");
    expect(msg).toContain(want);
  });
});

describe("accepted edge cases", () => {
  test("resumable: false and run: {} are fine with command", () => {
    const c = baseConfig();
    c.driver.benchmarks.b1 = { command: "echo hi", run: {}, resumable: false };
    expect(errorOf(c)).toBe("");
  });
  test("run policy keys equal to the injected ones re-validate (spec default §13.2)", () => {
    const c = baseConfig();
    c.driver.benchmarks.b1.run = { policy_base_url: "http://localhost:8000/v1", policy_model_name: "m", policy_api_key: "dummy" };
    c.driver.benchmarks.b2 = { command: "x", run: { policy_base_url: "http://localhost:8000/v1", policy_model_name: "m", policy_api_key: "dummy" } };
    expect(errorOf(c)).toBe("");
  });
  test("container is optional with container_runtime none; a set one is ignored with a warning", () => {
    const c = baseConfig();
    c.compute.cluster.container_runtime = "none";
    delete c.services.policy.container;
    expect(errorOf(c)).toBe("");
    c.services.policy.container = "img";
    expect(check(c).warnings.join("\n")).toContain("container of service 'policy' is ignored");
  });
  test("host: values are read but the config keeps the reference", () => {
    const c = baseConfig();
    c.driver.env = { T: "host:MY_TOKEN", L: "lit:runtime:x", R: "runtime:Y" };
    const v = check(c, { MY_TOKEN: "s3cret" });
    expect(v.hostValues).toEqual({ MY_TOKEN: "s3cret" });
    expect(v.config.driver.env).toEqual({ T: "host:MY_TOKEN", L: "lit:runtime:x", R: "runtime:Y" });
    expect(JSON.stringify(v.config)).not.toContain("s3cret");
  });
  test("idle GPUs are a warning, not an error", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools.gpu.gpus_per_node = 8;
    const v = check(c);
    expect(v.warnings.join("\n")).toContain("leaving 7 GPU(s) idle");
  });
  test("D35: two services on one node and port warn", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools.gpu.gpus_per_node = 2;
    c.services.judge = { type: "vllm", container: "c", model: "j" };
    const w = check(c).warnings.join("\n");
    expect(w).toContain("Services 'policy' and 'judge' can run on the same node (index 0) and both use port 8000");
  });
  test("D35: a service on a collector port warns", () => {
    const c = baseConfig();
    c.services.policy.port = 4318;
    c.otel = { endpoint: "https://o", service_name: "s" };
    expect(check(c).warnings.join("\n")).toContain("Services 'otel_collector' and 'policy' can run on the same node (index 0) and both use port 4318");
  });
  test("D35: unpinned vLLMs overfilling a node warn", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools.gpu.gpus_per_node = 1;
    c.services.judge = { type: "vllm", container: "c", model: "j", port: 8100 };
    const w = check(c).warnings.join("\n");
    expect(w).toContain("together need 2 GPUs per node, more than gpus_per_node (1)");
  });
});
