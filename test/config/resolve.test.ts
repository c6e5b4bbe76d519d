import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { resolveGlobalConfig, type ResolveRequest } from "../../src/config/resolve.ts";
import { validateInstance } from "../../src/config/servers.ts";
import { ConfigError, UsageError } from "../../src/errors.ts";
import { tempDir } from "../helpers/tmp.ts";
import { writeTree } from "./_write.ts";

const BUILTIN = resolve(import.meta.dir, "../fixtures/config/builtin");
const PLUGIN = resolve(import.meta.dir, "../fixtures/config/plugin");

function req(cwd: string, over: Partial<ResolveRequest> & { config?: string[]; search?: string[] } = {}): ResolveRequest {
  return {
    selectors: { configPaths: over.config ?? [], searchDirs: over.search ?? [], ...over.selectors },
    overrides: over.overrides ?? [],
    cwd,
    offline: true,
    noModel: over.noModel,
    initialDict: over.initialDict,
  };
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

const RS = "rs:\n  resources_servers:\n    my_rs:\n      entrypoint: app.py\n      domain: math\n";

describe("layer precedence (§4.1, §11.1)", () => {
  test("files < env.yaml < CLI; lists replace", async () => {
    await using d = await tempDir();
    writeTree(d.path, {
      "a.yaml": "x: file\ny: file\nz: file\nl: [1, 2]\n",
      "env.yaml": "y: env\nz: env\nl: [3]\n",
    });
    const { dict } = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"], overrides: ["+z=cli"] }));
    expect(dict).toMatchObject({ x: "file", y: "env", z: "cli", l: [3] });
  });
  test("env.yaml can supply config_paths through +config_paths=${my_config_paths}", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "from_a: 1\n", "env.yaml": "my_config_paths: [a.yaml]\n" });
    const { dict } = await resolveGlobalConfig(req(d.path, { overrides: ["+config_paths=${my_config_paths}"] }));
    expect(dict.from_a).toBe(1);
    expect(dict.config_paths).toEqual(["a.yaml"]);
  });
  test("an extra root's env.yaml shadows the cwd's", async () => {
    await using d = await tempDir();
    await using extra = await tempDir();
    writeTree(d.path, { "env.yaml": "who: cwd\n" });
    writeTree(extra.path, { "env.yaml": "who: extra\n" });
    expect((await resolveGlobalConfig(req(d.path, { search: [extra.path] }))).dict.who).toBe("extra");
  });
  test("the initial dict outranks files and env.yaml, and the CLI beats it", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "k: file\nj: file\n" });
    const { dict } = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"], initialDict: { k: "init", j: "init" }, overrides: ["+j=cli"] }));
    expect(dict).toMatchObject({ k: "init", j: "cli" });
  });
});

describe("selectors (§3)", () => {
  test("fixed category order whatever the command line: --model-type beats --benchmark beats --config", async () => {
    await using d = await tempDir();
    writeTree(d.path, {
      "mine.yaml": "who: config\n",
      "benchmarks/b/config.yaml": "who: benchmark\n",
      "responses_api_models/m/configs/m.yaml": "who: model\n",
    });
    const r = await resolveGlobalConfig(req(d.path, { config: ["mine.yaml"], selectors: { configPaths: ["mine.yaml"], searchDirs: [], modelType: "m", benchmark: "b" } }));
    expect(r.dict.who).toBe("model");
    expect((r.dict.config_paths as string[])[0]).toBe("mine.yaml");
    expect((r.dict.config_paths as string[])[1]).toBe(join(r.roots.find((x) => x.endsWith(d.path.split("/").pop()!))!, "benchmarks/b/config.yaml"));
  });
  test("name/flavor, and the nested benchmark form beats a flat flavor", async () => {
    await using d = await tempDir();
    writeTree(d.path, {
      "resources_servers/r/configs/alt.yaml": "flavor: alt\n",
      "benchmarks/g/x/config.yaml": "which: nested\n",
      "benchmarks/g/x.yaml": "which: flat\n",
    });
    expect((await resolveGlobalConfig(req(d.path, { selectors: { configPaths: [], searchDirs: [], resourcesServer: "r/alt" } }))).dict.flavor).toBe("alt");
    expect((await resolveGlobalConfig(req(d.path, { selectors: { configPaths: [], searchDirs: [], benchmark: "g/x" } }))).dict.which).toBe("nested");
  });
  test("an unknown name is a usage error with a did-you-mean and the searched directory", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "benchmarks/aalcr/config.yaml": "a: 1\n", "resources_servers/mcqa/configs/mcqa.yaml": "a: 1\n" });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { selectors: { configPaths: [], searchDirs: [], benchmark: "aalcrr" } })));
    expect(e).toBeInstanceOf(UsageError);
    expect(e.message).toContain("`--benchmark aalcrr` was specified which implies config `benchmarks/aalcrr/config.yaml`, which does not exist. Did you mean `aalcr`?");
    expect(e.message).toContain(join(d.path, "benchmarks"));
    const f = await errorOf(resolveGlobalConfig(req(d.path, { selectors: { configPaths: [], searchDirs: [], resourcesServer: "mcqa/nope" } })));
    expect(f.message).toContain("resources_servers/mcqa/configs/nope.yaml");
  });
  test("a --search-dir plugin shadows the same component in a later root", async () => {
    await using d = await tempDir();
    const r = await resolveGlobalConfig(req(d.path, { noModel: true, search: [PLUGIN, BUILTIN], selectors: { configPaths: [], searchDirs: [PLUGIN, BUILTIN], resourcesServer: "example_single_tool_call" } }));
    const rs = r.servers.find((s) => s.name === "example_single_tool_call")!;
    expect(rs.leaf.description).toBe("plugin shadow");
  });
});

describe("overrides on the merged config (D4)", () => {
  test("bare k=v overrides a key from a file; a missing key is the D4 error; ~k deletes", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "a:\n  b: 1\n  c: 2\n" });
    const { dict } = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"], overrides: ["a.b=5", "~a.c"] }));
    expect(dict.a).toEqual({ b: 5 });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"], overrides: ["a.x=1"] })));
    expect(e.message).toContain("key 'a.x' is not in the config; use +a.x=1 to add it");
  });
  test("flags translate to +k=v and still beat env.yaml", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "env.yaml": "policy_model_name: from_env\n" });
    expect((await resolveGlobalConfig(req(d.path, { overrides: ["+policy_model_name=from_flag"] }))).dict.policy_model_name).toBe("from_flag");
  });
});

describe("??? and directives in the pipeline (§4.6, §4.7)", () => {
  test("every ??? is reported at once with its file position", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "x: ???\ny:\n  z: ???\n  l: [1, ???]\n" });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })));
    expect(e.message).toStartWith("3 required config value(s) are unset (still '???') after merging:");
    expect(e.message).toContain(`  - x (${join(d.path, "a.yaml")}:1:4)`);
    expect(e.message).toContain("  - y.l[1]");
    expect(e.message).toContain("++y.z=<value>");
  });
  test("a ??? in a file is satisfied by env.yaml", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "x: ???\n", "env.yaml": "x: set\n" });
    expect((await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }))).dict.x).toBe("set");
  });
});

describe("no-model mode (§4.8)", () => {
  test("a config without a model gets the dummy placeholder; a real model absorbs it", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": RS, "m.yaml": "policy_model:\n  responses_api_models:\n    real_model:\n      entrypoint: app.py\n      url: ${policy_base_url}\n" });
    const a = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"], noModel: true }));
    expect(a.servers.find((s) => s.name === "policy_model")?.implementation).toBe("dummy_model");
    const b = await resolveGlobalConfig(req(d.path, { config: ["a.yaml", "m.yaml"], noModel: true }));
    expect(b.dict.policy_model).toEqual({ responses_api_models: { real_model: { entrypoint: "app.py", url: "${policy_base_url}", host: "127.0.0.1" } } });
    expect(b.dict.policy_base_url).toBe("");
  });
});

describe("server recognition (§6)", () => {
  test("valid instances, their implementation dir, and reserved keys skipped", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": `${RS}head_server: {port: 12000}\nnot_server: {foo: 1}\n`, "resources_servers/my_rs/app.py": "" });
    const r = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
    expect(r.servers.map((s) => [s.name, s.serverType, s.implementation])).toEqual([["rs", "resources_servers", "my_rs"]]);
    expect(r.servers[0]!.dir).toBe(join(r.roots[0]!, "resources_servers/my_rs"));
    expect(r.dict.head_server).toEqual({ port: 12000, host: "127.0.0.1" });
  });
  test("an invalid domain is an almost-server error with file:line:col and the allowed values", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "rs:\n  resources_servers:\n    my_rs:\n      entrypoint: app.py\n      domain: mathz\n      api_key: hunter2\n" });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })));
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toContain("Almost-Server Detected: 'rs'");
    expect(e.message).toContain(`ResourcesServerInstanceConfig -> resources_servers -> my_rs -> domain: Input should be 'math', 'coding'`);
    expect(e.message).toContain(`(${join(d.path, "a.yaml")}:5:15)`);
    expect(e.message).toContain("Found 1 almost-server(s) with validation errors");
    expect(e.message).not.toContain("hunter2");
  });
  test("error_on_almost_servers=false skips the server instead", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "rs:\n  resources_servers:\n    my_rs:\n      entrypoint: app.py\n" });
    const r = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"], overrides: ["+error_on_almost_servers=false"] }));
    expect(r.servers).toEqual([]);
  });
  test("dataset rules: license for train, benchmark needs prepare_script, bad type, source plus legacy id", async () => {
    await using d = await tempDir();
    const ds = (items: string) => `rs:\n  resources_servers:\n    my_rs:\n      entrypoint: app.py\n      domain: math\n      datasets:\n${items}`;
    const cases: [string, string][] = [
      ["      - {name: t, type: train, jsonl_fpath: t.jsonl}\n", "A license is required for t"],
      ["      - {name: t, type: train, jsonl_fpath: t.jsonl, license: Nope}\n", "license: Input should be 'Apache 2.0'"],
      ["      - {name: b, type: benchmark, jsonl_fpath: b.jsonl}\n", "prepare_script: Field required"],
      ["      - {name: x, type: weird, jsonl_fpath: x.jsonl}\n", "type: Input should be 'example', 'train', 'validation' or 'benchmark'"],
      ["      - {name: s, type: example, jsonl_fpath: s.jsonl, source: {type: huggingface, repo_id: a/b}, gitlab_identifier: {x: 1}}\n", "Specify a dataset source once for 's'"],
      ["      - {name: n, type: example, jsonl_fpath: n.jsonl, num_repeats: 0}\n", "num_repeats: Input should be greater than or equal to 1"],
    ];
    for (const [items, want] of cases) {
      writeTree(d.path, { "a.yaml": ds(items) });
      const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })));
      expect(e.message).toContain(want);
    }
    writeTree(d.path, { "a.yaml": ds("      - {name: ok, type: validation, jsonl_fpath: v.jsonl, license: GNU General Public License v3.0, extra_key: 1}\n") });
    expect((await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }))).servers).toHaveLength(1);
  });
  test("an SPDX license id (upstream's spartqa.yaml writes CC-BY-SA-4.0) is read as the license it names, with a warning", async () => {
    await using d = await tempDir();
    const ds = (license: string) => `rs:\n  resources_servers:\n    my_rs:\n      entrypoint: app.py\n      domain: math\n      datasets:\n      - {name: t, type: train, jsonl_fpath: t.jsonl, license: ${license}}\n`;
    writeTree(d.path, { "a.yaml": ds("CC-BY-SA-4.0") });
    const r = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
    expect(r.servers).toHaveLength(1);
    const leaf = { resources_servers: { my_rs: { entrypoint: "app.py", domain: "math", datasets: [{ name: "t", type: "train", jsonl_fpath: "t.jsonl", license: "CC-BY-SA-4.0" }] } } };
    const v = validateInstance("rs", leaf, [d.path]);
    expect(v.problems).toEqual([]);
    expect(v.warnings.join("\n")).toContain("spells its license 'CC-BY-SA-4.0' (an SPDX id); read as 'CC BY-SA 4.0'");
    writeTree(d.path, { "a.yaml": ds("CC-BY-SA-9.9") });
    expect((await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })))).message).toContain("license: Input should be 'Apache 2.0'");
  });
  test("two implementations under one type key are an almost-server", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "m:\n  responses_api_models:\n    a: {entrypoint: app.py}\n    b: {entrypoint: app.py}\n" });
    expect((await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })))).message).toContain("Expected exactly one implementation, found 2 (a, b)");
  });
  test("a reference to an undefined server names it, with suggestions", async () => {
    await using d = await tempDir();
    writeTree(d.path, {
      "a.yaml": `${RS}agent:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      resources_server: {type: resources_servers, name: rsx}\n`,
    });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })));
    expect(e.message).toContain("In server instance 'agent', field 'resources_server' references resources_servers/'rsx', which is not defined in the merged config.\nDid you mean: 'rs'?");
    expect(e.message).toStartWith(`${join(d.path, "a.yaml")}:10:57: `);
  });
});

describe("environment servers and --agent-type (D1, D7)", () => {
  test("an agent without an environment server gets a generated legacy_agent; a fronted one does not", async () => {
    await using d = await tempDir();
    const agent = "ag:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      resources_server: {type: resources_servers, name: rs}\n";
    writeTree(d.path, { "a.yaml": RS + agent, "env.yaml": "" });
    const r = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
    const gen = r.servers.find((s) => s.generated)!;
    expect(gen.name).toBe("ag__legacy_agent");
    expect(r.dict.ag__legacy_agent).toEqual({
      environment_servers: { legacy_agent: { entrypoint: "app.py", agent_server: { type: "responses_api_agents", name: "ag" }, host: "127.0.0.1" } },
    });
    writeTree(d.path, { "b.yaml": "front:\n  environment_servers:\n    my_env:\n      entrypoint: app.py\n      agent_server: {type: responses_api_agents, name: ag}\n" });
    const r2 = await resolveGlobalConfig(req(d.path, { config: ["a.yaml", "b.yaml"] }));
    expect(r2.servers.some((s) => s.generated)).toBe(false);
  });
  test("--agent-type swaps the harness, keeping resources_server/model_server/datasets", async () => {
    await using d = await tempDir();
    const r = await resolveGlobalConfig(
      req(d.path, { noModel: true, search: [BUILTIN], selectors: { configPaths: [], searchDirs: [BUILTIN], resourcesServer: "example_single_tool_call", agentType: "tool_agent" } }),
    );
    const agent = r.servers.find((s) => s.name === "example_single_tool_call_simple_agent")!;
    expect(agent.implementation).toBe("tool_agent");
    expect(agent.leaf.max_tool_calls).toBe(3);
    expect(agent.leaf.resources_server).toEqual({ type: "resources_servers", name: "example_single_tool_call" });
    expect((agent.leaf.datasets as unknown[]).length).toBe(1);
    const block = r.dict.example_single_tool_call_simple_agent as { responses_api_agents: Record<string, unknown> };
    expect(Object.keys(block.responses_api_agents)).toEqual(["tool_agent"]);
  });
  test("--agent-type is refused when allowed_agents does not list it", async () => {
    await using d = await tempDir();
    const e = await errorOf(
      resolveGlobalConfig(req(d.path, { noModel: true, search: [BUILTIN], selectors: { configPaths: [], searchDirs: [BUILTIN], resourcesServer: "pinned", agentType: "tool_agent" } })),
    );
    expect(e.message).toBe("--agent-type tool_agent is not allowed for resources server 'pinned' (allowed_agents: simple_agent).");
  });
});

describe("global defaults (§4.9, D8, D9)", () => {
  test("an empty command line gives upstream's defaults in order, ports unset", async () => {
    await using d = await tempDir();
    const { dict } = await resolveGlobalConfig(req(d.path));
    expect(Object.keys(dict)).toEqual([
      "use_absolute_ip", "head_server", "disallowed_ports", "port_range_low", "port_range_high", "skip_venv_if_present", "dry_run",
      "model_endpoint_readiness_timeout_seconds", "server_spinup_timeout_seconds", "allow_openai_version_skew", "uv_cache_dir",
      "uv_venv_dir", "results_dir", "cache_dir",
    ]);
    expect(dict.head_server).toEqual({ host: "127.0.0.1", port: 11000 });
    expect(dict.results_dir).toBe(join(d.path, "results"));
    expect(dict.uv_cache_dir).toBe(join(dict.cache_dir as string, "uv"));
  });
  test("explicit ports are kept and disallowed; unset ports stay unset; default_host fills hosts", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": `${RS}rs2:\n  resources_servers:\n    r2:\n      entrypoint: app.py\n      domain: math\n      port: 15555\ndefault_host: 0.0.0.0\n` });
    const r = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
    expect(r.servers.map((s) => s.leaf.port)).toEqual([undefined, 15555]);
    expect(r.servers.map((s) => s.leaf.host)).toEqual(["0.0.0.0", "0.0.0.0"]);
    expect(r.dict.disallowed_ports).toEqual([11000, 15555]);
    expect(r.dict.head_server).toEqual({ host: "0.0.0.0", port: 11000 });
  });
  test("results_dir relative and ~ are made absolute; a non-string is an error pointing at the file", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "results_dir: out/r\ncache_dir: ~/c\n", "b.yaml": "results_dir: 123\n" });
    const { dict } = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
    expect(dict.results_dir).toBe(join(d.path, "out/r"));
    expect(dict.cache_dir).toBe(join(process.env.HOME!, "c"));
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["b.yaml"] })));
    expect(e.message).toBe(`${join(d.path, "b.yaml")}:1:14: results_dir must be a non-empty path string, got 123.`);
  });
  test("allow_openai_version_skew must be a real bool; readiness timeout must be numeric", async () => {
    await using d = await tempDir();
    const e1 = await errorOf(resolveGlobalConfig(req(d.path, { overrides: ["+allow_openai_version_skew='false'"] })));
    expect(e1.message).toBe("allow_openai_version_skew must be a boolean (true/false), got 'false'.");
    const e2 = await errorOf(resolveGlobalConfig(req(d.path, { overrides: ["+model_endpoint_readiness_timeout_seconds=x"] })));
    expect(e2.message).toContain("`model_endpoint_readiness_timeout_seconds` must be a number of seconds, got 'x'.");
  });
  test("skip_verification is copied into agents that do not set it", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": `${RS}ag:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\nskip_verification: true\n` });
    const r = await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
    expect(r.servers.find((s) => s.name === "ag")!.leaf.skip_verification).toBe(true);
  });
});

describe("network keys (D17, D18)", () => {
  test("a positive pool limit below num_workers is an error naming the server", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "rs:\n  resources_servers:\n    r:\n      entrypoint: app.py\n      domain: math\n      num_workers: 4\nglobal_aiohttp_connector_limit: 3\n" });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })));
    expect(e.message).toContain("global_aiohttp_connector_limit=3 is smaller than num_workers=4 for server 'rs'; the per-worker limit would be 0 (unlimited).");
    expect(e.message).toContain("a.yaml:7:");
    writeTree(d.path, { "a.yaml": "global_aiohttp_connector_limit: 0\n" });
    await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }));
  });
  test("proxy headers need a specific allowlist", async () => {
    await using d = await tempDir();
    expect((await errorOf(resolveGlobalConfig(req(d.path, { overrides: ["+uvicorn_proxy_headers=true"] })))).message).toContain(
      "uvicorn_proxy_headers=true requires a non-empty uvicorn_forwarded_allow_ips list",
    );
    for (const bad of ["'*'", "0.0.0.0/0", "'::/0'"]) {
      const e = await errorOf(resolveGlobalConfig(req(d.path, { overrides: ["+uvicorn_proxy_headers=true", `+uvicorn_forwarded_allow_ips=[${bad}]`] })));
      expect(e.message).toContain("wildcards and all-address ranges trust every client");
    }
    expect((await errorOf(resolveGlobalConfig(req(d.path, { overrides: ["+uvicorn_forwarded_allow_ips=[not-an-ip]"] })))).message).toContain("is not an IP address or CIDR");
    await resolveGlobalConfig(req(d.path, { overrides: ["+uvicorn_proxy_headers=true", "+uvicorn_forwarded_allow_ips=[10.0.0.0/8,'::1']"] }));
  });
});

describe("global key types (§7.2)", () => {
  test("wrong types are reported together with their file positions", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "dry_run: maybe\nport_range_low: 70000\nverbose: true\n" });
    const e = await errorOf(resolveGlobalConfig(req(d.path, { config: ["a.yaml"] })));
    expect(e.message).toStartWith("2 global config keys have invalid values:");
    expect(e.message).toContain(`${join(d.path, "a.yaml")}:1:10: dry_run: Input should be a valid boolean, got "maybe"`);
    expect(e.message).toContain("port_range_low: Input should be less than or equal to 65535");
  });
  test("values behind interpolations are checked after resolving", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "flag: true\ndry_run: ${flag}\n" });
    expect((await resolveGlobalConfig(req(d.path, { config: ["a.yaml"] }))).dict.dry_run).toBe("${flag}");
  });
  test("profiling needs a results directory", async () => {
    await using d = await tempDir();
    expect((await errorOf(resolveGlobalConfig(req(d.path, { overrides: ["+profiling_enabled=true"] })))).message).toContain("requires profiling_results_dirpath");
  });
});
