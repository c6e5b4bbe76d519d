/**
 * The rendered sbatch scripts (spec submit.md §6): golden files for the four reference jobs, shape
 * assertions, and `bash -n` + `shellcheck -S error` over a matrix of configs (D25).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { executorPrechecks } from "../../src/submit/prechecks.ts";
import { flattenOverrides } from "../../src/submit/render/flatten.ts";
import { parseWalltime } from "../../src/submit/render/resume.ts";
import { renderScript } from "../../src/submit/render/script.ts";
import { renderAll } from "../../src/submit/submit.ts";
import { parse as parseYaml } from "yaml";
import { tempDir } from "../helpers/tmp.ts";
import { baseConfig, check, ID } from "./_helpers.ts";
import { FIXTURES, renderFixture } from "./_render.ts";

type Cfg = Record<string, any>;

function render(c: Cfg, env: Record<string, string> = {}, bench = "b1", id = ID): string {
  const v = check(c, env);
  return renderScript(v.config, v.hostValues, id, bench);
}

const GOLDENS = ["vllm-dp", "vllm-multinode", "vllm-pd", "ray"];

describe("golden scripts", () => {
  test.each(GOLDENS)("%s", (name) => {
    expect(renderFixture(name)).toBe(readFileSync(join(FIXTURES, `${name}.sh`), "utf8"));
  });
});

/** A matrix of configs that exercise every rendering branch. */
function matrix(): [string, string][] {
  const out: [string, string][] = GOLDENS.map((g) => [g, renderFixture(g)]);
  const add = (name: string, f: (c: Cfg) => void, env: Record<string, string> = {}) => {
    const c = baseConfig();
    f(c);
    out.push([name, render(c, env)]);
  };
  add("bare metal, command with quotes", (c) => {
    c.compute.cluster.container_runtime = "none";
    delete c.services.policy.container;
    c.driver.benchmarks.b1 = { command: "echo 'it''s' \"$HOME\"\nfor i in 1 2; do echo $i; done" };
  });
  add("nasty env values", (c) => {
    c.services.policy.env = { A: "lit:val;rm -rf /", B: "lit:it's", C: 'lit:{"j": [1, 2]}', D: "runtime:SOME_VAR", E: "host:HV" };
  }, { HV: "a b'c" });
  add("names with digits and dashes, multi-line pre_command", (c) => {
    c.compute.cluster.node_pools = { "gpu-a": { partition: "p", nodes: 1, gpus_per_node: 1 }, "8b": { partition: "p", nodes: 1, gpus_per_node: 1 } };
    c.services = {
      "8b-judge": { type: "vllm", container: "c", model: "j", node_pool: "8b", port: 8100, pre_command: "echo 'x'\nexport A=\"b c\"\n" },
      policy: { type: "vllm", container: "c", model: "m", node_pool: "gpu-a", served_model_name: "my model" },
    };
  });
  add("collector on, driver node not 0, resumable default, gym_install and prepare", (c) => {
    c.compute.cluster.node_pools = { judge: { partition: "p", nodes: 1, gpus_per_node: 1 }, gpu: { partition: "p", nodes: 1, gpus_per_node: 1 } };
    c.services.policy.node_pool = "gpu";
    c.services.judge = { type: "vllm", container: "c", model: "j", node_pool: "judge", port: 8100 };
    c.otel = { endpoint: "https://o", service_name: "s", container: "otel:latest" };
    c.driver.gym_install = { ref: "v0.7.0" };
    c.driver.benchmarks.b1 = { prepare: { split: "test" }, run: { temperature: 0.5 }, resumable: true };
  });
  add("command with gym_install and policy", (c) => {
    c.driver.gym_install = { ref: "main" };
    c.driver.benchmarks.b1 = { command: "gym eval run +x=1" };
  });
  add("ray serve single node and multi-node", (c) => {
    c.compute.cluster.node_pools = { one: { partition: "p", nodes: 1, gpus_per_node: 8 }, many: { partition: "p", nodes: 4, gpus_per_node: 8 } };
    c.services = {
      small: { type: "vllm", container: "c", model: "m", node_pool: "one", use_ray_serve: true, number_of_instances: 2, tensor_parallel_size: 4, extra_args: "--max-model-len 4096" },
      big: { type: "vllm", container: "c", model: "m", node_pool: "many", port: 8100, number_of_instances: 2, tensor_parallel_size: 16, trust_remote_code: true },
    };
    c.driver.policy_model = "small";
  });
  add("one instance across pinned nodes, ntasks_per_node 2", (c) => {
    c.compute.cluster.node_pools = { head: { partition: "p", nodes: 1, ntasks_per_node: 2, gpus_per_node: 8 }, big: { partition: "p", nodes: 2, ntasks_per_node: 2, gpus_per_node: 8 } };
    c.services = { policy: { type: "vllm", container: "c", model: "m", node_pool: "big", tensor_parallel_size: 16 } };
  });
  add("PD server_per_node with router pre_command", (c) => {
    c.compute.cluster.node_pools = { p: { partition: "x", nodes: 2, gpus_per_node: 8 }, d: { partition: "x", nodes: 2, gpus_per_node: 8 } };
    c.services = { pol: { type: "vllm_pd", container: "c", model: "m", server_per_node: true, pre_command: "echo router", prefill: { node_pool: "p", tensor_parallel_size: 8 }, decode: { node_pool: "d", tensor_parallel_size: 8, pre_command: "echo 'dec'" } } };
    c.driver.policy_model = "pol";
  });
  add("ray service alone on a single node", (c) => {
    c.compute.cluster.node_pools = {};
    c.services = { r: { type: "ray", container: "r", num_gpus: 0 } };
    c.driver.policy_model = "r";
  });
  {
    // Free-form text in words: spaces and quotes in the run dir, service, pool and benchmark names.
    const c = baseConfig();
    c.compute.cluster.node_pools = { "pool a": { partition: "p", nodes: 2, gpus_per_node: 1 } };
    c.services = { "my svc": { type: "vllm", container: "c", model: "m", node_pool: "pool a", number_of_instances: 2 } };
    c.driver.policy_model = "my svc";
    c.driver.benchmarks = { "b.1": { prepare: { "x y": "it's" }, resumable: true } };
    c.otel = { endpoint: "https://o", service_name: "s" };
    const text = render(c, {}, "b.1", { gymJobId: "gym-job-x", runDir: "/lustre/my evals/it's/gym-job-x" });
    expect(text).toContain('#SBATCH --chdir="/lustre/my evals/it\'s/gym-job-x/b.1"');
    expect(text).toContain("--output=logs/'my svc'-$SLURM_JOB_ID.log");
    out.push(["free-form names and paths", text]);
  }
  add("no pools at all, ntasks default", (c) => {
    c.compute.cluster.node_pools = {};
    c.compute.cluster.extra_args = { exclusive: true, comment: "two words" };
  });
  return out;
}

describe("every rendered script is valid bash and passes shellcheck -S error (D25)", () => {
  const scripts = matrix();
  test("bash -n and shellcheck", async () => {
    await using dir = await tempDir("gym-submit-sc-");
    const files = scripts.map(([name], i) => join(dir.path, `s${i}-${name.replace(/[^a-z0-9]+/gi, "-")}.sh`));
    scripts.forEach(([, text], i) => writeFileSync(files[i]!, text));
    for (const f of files) {
      const r = Bun.spawnSync(["bash", "-n", f], { stderr: "pipe" });
      expect(`${f}: ${r.stderr.toString()}`).toBe(`${f}: `);
    }
    const sc = Bun.which("shellcheck");
    if (!sc) {
      console.warn("note: shellcheck not installed; skipped the shellcheck half (CI installs it)");
      return;
    }
    const r = Bun.spawnSync([sc, "-S", "error", ...files], { stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString() + r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });
  test("the matrix covers every shape", () => {
    const all = scripts.map(([, t]) => t).join("\n");
    for (const needle of ["ray symmetric-run", "--headless", "ray_serve_gateway.py", "vllm-router", "--kv-transfer-config", "ray start --block --head", "pip install -q", "OUTPUT_DIR=\"$PWD\"", "otelcol-contrib", "uv venv --seed .venv"]) {
      expect(all).toContain(needle);
    }
  });
});

describe("script shapes", () => {
  test("single node, no pinning: no host array, no placement flags", () => {
    const s = render(baseConfig());
    expect(s).not.toContain("gym_nodes");
    expect(s).toContain("srun --overlap --no-container-mount-home --container-image=vllm:latest --output=logs/policy-$SLURM_JOB_ID.log vllm serve m --port 8000 --tensor-parallel-size 1 &");
    expect(s.match(/^#SBATCH --nodes=/gm)).toEqual(["#SBATCH --nodes="]);
  });
  test("pools: one directive set with the node sum; pinned steps use the pool's node list", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { a: { partition: "p", nodes: 2, extra_args: { gres: "x" } }, b: { partition: "p", nodes: 3, extra_args: { gres: "x" } } };
    c.services.policy.node_pool = "b";
    const s = render(c);
    expect(s).toContain("#SBATCH --partition=p\n#SBATCH --nodes=5\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=x\n");
    expect(s).toContain('export GYM_POOL_B_NODES="$(IFS=,; echo "${gym_nodes[*]:2:3}")"');
    expect(s).toContain('--nodelist="${GYM_POOL_B_NODES}" --nodes=3 --ntasks=3');
    expect(s).toContain('curl -sf --noproxy \'*\' --max-time 5 "http://${gym_nodes[2]}:8000/health"');
    expect(s).toContain('srun --overlap --nodelist="${gym_nodes[2]}" --nodes=1 --ntasks=1');
  });
  test("pool disagreement is a render-time error", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { a: { partition: "p", nodes: 1 }, b: { partition: "q", nodes: 1 } };
    expect(() => render(c)).toThrow("Node pools disagree on partition (a='p', b='q')");
    c.compute.cluster.node_pools = { a: { partition: "p", extra_args: { gres: "shard:8" } }, b: { partition: "p", extra_args: { gres: "shard:4" } } };
    expect(() => render(c)).toThrow("Node pool 'b' sets extra_args['gres']='shard:4', which conflicts with another pool's 'shard:8'");
  });
  test("env prefix forms (§3.2); invalid env keys fail at render time", () => {
    const c = baseConfig();
    c.services.policy.env = { MSG: "lit:hello world", K: "lit:val;rm -rf /", T: "host:TOK", R: "runtime:WANDB_API_KEY" };
    const s = render(c, { TOK: "tok123" });
    expect(s).toContain(`env MSG='hello world' K='val;rm -rf /' T=tok123 "R=\${WANDB_API_KEY}" srun`);
    c.services.policy.env = { "KEY-NAME": "lit:x" };
    expect(() => render(c)).toThrow("Invalid environment variable name: 'KEY-NAME'");
  });
  test("D29: multi-node DP addresses are expanded on the batch host", () => {
    const s = renderFixture("vllm-multinode");
    expect(s).toContain(`--data-parallel-address '"\${gym_nodes[0]}"' --data-parallel-rpc-port 13345`);
    const pdScript = renderFixture("vllm-pd");
    expect(pdScript).toContain('--prefill "http://${gym_nodes[1]}:8001" --decode "http://${gym_nodes[2]}:8002"');
  });
  test("driver: overrides in upstream order, staged binary, bench dir and binary mounted", () => {
    const c = baseConfig();
    c.driver.benchmarks.b1 = { run: { b: { c: [1, 2] }, name: "my model", require_complete: false }, resumable: { max_retries: 1 } };
    const s = render(c);
    const bd = `${ID.runDir}/b1`;
    expect(s).toContain(
      [
        "GYM_CMD=(",
        `    ${ID.runDir}/gym eval run`,
        `    +output_jsonl_fpath=${bd}/artifacts/rollouts.jsonl`,
        "    --model-type",
        "    openai_model",
        "    +observability_enabled=True",
        "    '+b.c=[1,2]'",
        "    '+name=my model'",
        "    +require_complete=False",
        "    +policy_base_url=http://localhost:8000/v1",
        "    +policy_model_name=m",
        "    +policy_api_key=dummy",
        `    +model_call_capture_dir=${bd}/model-calls`,
        "    +resume_from_cache=True",
        ")",
      ].join("\n"),
    );
    expect(s).toContain(`--container-mounts=${bd}:${bd},${ID.runDir}/gym:${ID.runDir}/gym:ro --container-image=python:3.12 --output=logs/driver-$SLURM_JOB_ID.log "\${GYM_CMD[@]}"`);
    expect(s).toContain("export GYM_JOB_END_TIME");
    expect(s).toContain('if [ "$_gym_retries" -gt 1 ]; then');
  });
  test("D33: a command body starts with the PATH export, then set -euo pipefail", () => {
    const c = baseConfig();
    c.compute.cluster.container_runtime = "none";
    c.driver.benchmarks.b1 = { command: "gym --version" };
    const s = render(c);
    expect(s).toContain(`bash -c 'export PATH="${ID.runDir}:$PATH"\nset -euo pipefail\ngym --version'`);
    expect(s).toContain(`NEMO_GYM_BENCH_DIR=${ID.runDir}/b1 NEMO_GYM_POLICY_BASE_URL=http://localhost:8000/v1`);
    expect(s).not.toContain("--container");
    expect(s).not.toContain("GYM_CMD");
  });
  test("collector: first step, first health check, graceful shutdown on node d", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { a: { partition: "p", nodes: 1, gpus_per_node: 1 }, b: { partition: "p", nodes: 1, gpus_per_node: 1 } };
    c.services.policy.node_pool = "b";
    c.otel = { endpoint: "https://o", service_name: "s" };
    const s = render(c);
    expect(s.indexOf("# service: otel_collector")).toBeLessThan(s.indexOf("# service: policy"));
    expect(s.indexOf("Waiting for otel_collector")).toBeLessThan(s.indexOf("Waiting for policy"));
    expect(s).toContain(`env "OTEL_TOKEN=\${OTEL_TOKEN}" "SLURM_JOB_ID=\${SLURM_JOB_ID}" srun --overlap --nodelist="\${gym_nodes[1]}" --nodes=1 --ntasks=1 --output=logs/otel_collector-$SLURM_JOB_ID.log otelcol-contrib --config ${ID.runDir}/b1/otel/collector.yaml &`);
    expect(s).toContain(`srun --overlap --nodelist="\${gym_nodes[1]}" --nodes=1 --ntasks=1 pkill -TERM -u "$(id -u)" -f -- '^([^ ]*/)?otelcol-contrib --config`);
    expect(s.trimEnd().endsWith('exit "$DRIVER_RC"')).toBe(true);
    expect(s).toContain("for _i in $(seq 1 60); do");
  });
  test("every service step is one block without empty lines, starting with its comment", () => {
    const c = baseConfig();
    c.services.policy.pre_command = "echo a\n\n  \necho b\n";
    const s = render(c);
    const block = s.split("\n\n").find((b) => b.startsWith("# service: policy"))!;
    expect(block).toContain("bash -c 'echo a\necho b\nexec vllm serve m");
    expect(block.trimEnd().endsWith("POLICY_PID=$!")).toBe(true);
  });
  test("health check: death check before probe, at least one attempt", () => {
    const c = baseConfig();
    c.services.policy.health_check = { timeout_seconds: 3 };
    const s = render(c);
    expect(s).toContain("for _i in $(seq 1 1); do");
    expect(s.indexOf('kill -0 "$POLICY_PID"')).toBeLessThan(s.indexOf("curl -sf"));
  });
});

describe("collector.yaml (§7)", () => {
  test("scrapes every model service (PD router and tiers), dcgm/node unless null; the token stays a reference", () => {
    const c = baseConfig();
    c.compute.cluster.node_pools = { a: { partition: "p", nodes: 1, gpus_per_node: 1 }, b: { partition: "p", nodes: 1, gpus_per_node: 1 } };
    c.services = {
      pd: { type: "vllm_pd", container: "c", model: "m", served_model_name: "served", port: 9000, prefill: { node_pool: "a" }, decode: { node_pool: "b" } },
      r: { type: "ray", container: "r" },
    };
    c.driver.policy_model = "pd";
    c.otel = { endpoint: "https://otel.example", service_name: "svc", token_env: "MY_OTEL", node_metrics_port: null };
    const staged = renderAll(check(c), ID.gymJobId, ID.runDir);
    const doc = parseYaml(staged[0]!.collectorYaml!);
    const jobs = doc.receivers.prometheus.config.scrape_configs.map((j: { job_name: string; static_configs: { targets: string[] }[] }) => [j.job_name, j.static_configs[0]!.targets[0]]);
    expect(jobs).toEqual([["gym-vllm/pd-prefill", "localhost:9001"], ["gym-vllm/pd-decode", "localhost:9002"], ["gym-vllm/pd", "localhost:9000"], ["dcgm", "localhost:9400"]]);
    expect(doc.exporters.otlphttp).toEqual({ endpoint: "https://otel.example", headers: { Authorization: "Bearer ${env:MY_OTEL}" } });
    expect(doc.exporters["file/metrics"].path).toBe(`${ID.runDir}/b1/otel/metrics.jsonl`);
    expect(doc.extensions.health_check.endpoint).toBe("0.0.0.0:13133");
    const attrs = Object.fromEntries(doc.processors["resource/gym"].attributes.filter((a: { value?: string }) => a.value !== undefined).map((a: { key: string; value: string }) => [a.key, a.value]));
    expect(attrs).toMatchObject({ "service.name": "svc", run_id: ID.gymJobId, benchmark: "b1", cluster: "cluster", model: "served", Authorization: "${env:MY_OTEL}" });
    expect(staged[0]!.script).toContain(`env "MY_OTEL=\${MY_OTEL}"`);
  });
});

describe("helpers", () => {
  test.each([
    ["90", 5400], ["05:30", 330], ["02:00:00", 7200], ["10:00:00", 36000], ["48:00:00", 172800], ["1-06", 108000], ["2-00:00:00", 172800], ["1-02:03", 93780],
  ] as [string, number][])("max_walltime %s = %d s", (v, s) => {
    expect(parseWalltime(v)).toBe(s);
  });
  test("bad max_walltime values", () => {
    expect(() => parseWalltime("1:2:3:4")).toThrow("Invalid max_walltime '1:2:3:4': expected Slurm duration syntax");
    expect(() => parseWalltime("ab")).toThrow("expected Slurm duration syntax");
    expect(() => parseWalltime("x-01:00")).toThrow("day component must be an integer.");
  });
  test("flattening (§6.8)", () => {
    expect(flattenOverrides({ temperature: 0.05, n: 92, flag: true, config_paths: ["a.yaml", "b.yaml"], name: "my model", a: { b: { c: "x" } }, e: {} })).toEqual([
      "+temperature=0.05", "+n=92", "+flag=True", "'+config_paths=[a.yaml,b.yaml]'", "'+name=my model'", "+a.b.c=x",
    ]);
  });
  test("executor pre-checks: benchmark names and OTel", () => {
    const c = baseConfig();
    c.driver.benchmarks["bad name"] = {};
    expect(() => executorPrechecks(check(c).config, () => undefined)).toThrow("Invalid benchmark name(s) 'bad name': names must match ^[A-Za-z0-9._-]+$");
    const o = baseConfig();
    o.otel = { endpoint: "https://x" };
    expect(() => executorPrechecks(check(o).config, () => undefined)).toThrow("The OTel collector is enabled but otel.service_name is not set.");
    o.otel.service_name = "s";
    expect(() => executorPrechecks(check(o).config, () => "")).toThrow("The OTel collector is enabled but 'OTEL_TOKEN' is not set in the submitting shell's environment.");
    expect(() => executorPrechecks(check(o).config, () => "t")).not.toThrow();
  });
});
