import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";
import { GYM_MAIN, tempDir, runGym } from "../helpers/tmp.ts";
import { writeTree } from "../config/_write.ts";

const BUILTIN = resolve(import.meta.dir, "../fixtures/config/builtin");
const PLUGIN = resolve(import.meta.dir, "../fixtures/config/plugin");
const POLICY = ["+policy_base_url=http://127.0.0.1:9/v1", "+policy_api_key=sk-very-secret", "+policy_model_name=tiny"];

type Servers = Record<string, Record<string, Record<string, Record<string, unknown>>>>;

describe("gym env resolve", () => {
  test("prints the merged YAML: interpolations resolved, secrets masked, hosts and ports filled", async () => {
    await using d = await tempDir();
    const r = await runGym(["env", "resolve", "--search-dir", BUILTIN, "--resources-server", "example_single_tool_call", "--model-type", "openai_model", ...POLICY], { cwd: d.path });
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("sk-very-secret");
    const creds = await runGym(["env", "resolve", "--search-dir", BUILTIN, "--resources-server", "example_single_tool_call", "--model-type", "openai_model", "+policy_base_url='http://bob:pw-in-url@127.0.0.1:9/v1?api_key=q-secret'", "+policy_api_key=x", "+policy_model_name=tiny"], { cwd: d.path });
    expect(creds.code).toBe(0);
    expect(creds.stdout).not.toContain("pw-in-url");
    expect(creds.stdout).not.toContain("q-secret");
    expect(creds.stdout).toContain("http://****@127.0.0.1:9/v1?api_key=****");
    const out = parse(r.stdout) as Servers;
    const top = out as unknown as Record<string, unknown>;
    const model = out.policy_model!.responses_api_models!.openai_model!;
    expect(model.openai_base_url).toBe("http://127.0.0.1:9/v1");
    expect(model.openai_api_key).toBe("****");
    expect(top.policy_api_key).toBe("****");
    expect(model.host).toBe("127.0.0.1");
    expect(typeof model.port).toBe("number");
    const ports = [model.port, out.example_single_tool_call!.resources_servers!.example_single_tool_call!.port];
    expect(new Set(ports).size).toBe(2);
    expect(top.results_dir).toBe(resolve(d.path, "results"));
    expect(top.config_paths).toEqual([
      resolve(BUILTIN, "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml"),
      resolve(BUILTIN, "responses_api_models/openai_model/configs/openai_model.yaml"),
    ]);
    expect(Object.keys(out)).toContain("example_single_tool_call_simple_agent__legacy_agent");
  });

  test("a --search-dir plugin shadows the component of a later root, from another cwd", async () => {
    await using d = await tempDir();
    const r = await runGym(["env", "resolve", "--search-dir", PLUGIN, "--search-dir", BUILTIN, "--resources-server", "example_single_tool_call", "--model-type", "openai_model", ...POLICY], { cwd: d.path });
    expect(r.code).toBe(0);
    const out = parse(r.stdout) as Servers;
    expect(out.example_single_tool_call!.resources_servers!.example_single_tool_call!.description).toBe("plugin shadow");
    expect(r.stderr).toContain("matches multiple configs");
  });

  const builtinRs = resolve(import.meta.dir, "../../assets/resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml");
  test.if(existsSync(builtinRs))("acceptance: the embedded built-ins resolve, and a --search-dir plugin shadows the built-in", async () => {
    await using d = await tempDir();
    const args = ["env", "resolve", "--resources-server", "example_single_tool_call", "--model-type", "openai_model", ...POLICY];
    const plain = await runGym(args, { cwd: d.path });
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain("sk-very-secret");
    const builtin = parse(plain.stdout) as Servers;
    expect(builtin.example_single_tool_call!.resources_servers!.example_single_tool_call!.description).not.toBe("plugin shadow");
    const shadowed = await runGym(["env", "resolve", "--search-dir", PLUGIN, ...args.slice(2)], { cwd: d.path });
    expect(shadowed.code).toBe(0);
    expect((parse(shadowed.stdout) as Servers).example_single_tool_call!.resources_servers!.example_single_tool_call!.description).toBe("plugin shadow");
  });

  test("gym env validate: no-model parse prints the success line", async () => {
    await using d = await tempDir();
    const r = await runGym(["env", "validate", "--search-dir", BUILTIN, "--resources-server", "example_single_tool_call"], { cwd: d.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("✓ Config is valid.\n");
  });
});

describe("bad input: exit 2, one clear error, no stack trace (stack only with -v)", () => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    ["malformed YAML", { "bad.yaml": "a: [1, 2\n" }, ["--config", "bad.yaml"], /Malformed YAML in '.*bad\.yaml' at line \d+, column \d+/],
    ["unknown override path", { "a.yaml": "a: 1\n" }, ["--config", "a.yaml", "nope.x=1"], /key 'nope\.x' is not in the config; use \+nope\.x=1 to add it/],
    ["missing file", {}, ["--config", "missing.yaml"], /config_paths entry 'missing\.yaml' was not found\. Looked in:/],
    ["unknown selector name", { "benchmarks/zeta24/config.yaml": "a: 1\n" }, ["--benchmark", "zeta25"], /`--benchmark zeta25` was specified .* Did you mean `zeta24`\?/],
    ["unresolvable interpolation", { "a.yaml": "x: ${nowhere}\n" }, ["--config", "a.yaml"], /a\.yaml:1:4: Config value 'x' references 'nowhere'/],
    ["unresolvable interpolation in a list", { "a.yaml": "x:\n- ok\n- ${nowhere}\n" }, ["--config", "a.yaml"], /a\.yaml:3:3: Config value 'x\[1\]' references 'nowhere'/],
    ["config_paths cycle", { "a.yaml": "config_paths: [b.yaml]\n", "b.yaml": "config_paths: [./a.yaml]\n" }, ["--config", "a.yaml"], /config_paths cycle: a\.yaml → b\.yaml → \.\/a\.yaml/],
  ];
  for (const [name, files, args, want] of cases) {
    test(name, async () => {
      await using d = await tempDir();
      writeTree(d.path, files);
      const r = await runGym(["env", "resolve", ...args], { cwd: d.path });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^error: /m);
      expect(r.stderr).toMatch(want);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    });
  }
  test("-v adds the stack trace", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "a.yaml": "a: 1\n" });
    const r = await runGym(["env", "resolve", "--config", "a.yaml", "nope.x=1", "-v"], { cwd: d.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^\s+at /m);
  });
});

describe("gym env resolve output on a pipe", () => {
  const bigConfig = (): string => `big:\n${Array.from({ length: 8000 }, (_, i) => `  key_${i}: value number ${i}\n`).join("")}`;

  test("a config far larger than a pipe buffer comes out whole", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "big.yaml": bigConfig() });
    const r = await runGym(["env", "resolve", "--config", "big.yaml"], { cwd: d.path });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(200_000);
    const big = (parse(r.stdout) as Record<string, Record<string, string>>).big!;
    expect(Object.keys(big)).toHaveLength(8000);
    expect(big.key_7999).toBe("value number 7999");
  });

  test("a reader that stops early (| head) is not an error", async () => {
    await using d = await tempDir();
    writeTree(d.path, { "big.yaml": bigConfig() });
    const proc = Bun.spawn([process.execPath, GYM_MAIN, "env", "resolve", "--config", "big.yaml"], { cwd: d.path, stdout: "pipe", stderr: "pipe" });
    const reader = proc.stdout.getReader();
    await reader.read();
    await reader.cancel();
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  });
});

describe("GYM_TIMING stage marks", () => {
  test("go to stderr in pipeline order with growing times; stdout stays the YAML; off by default", async () => {
    await using d = await tempDir();
    const args = ["env", "resolve", "--search-dir", BUILTIN, "--resources-server", "example_single_tool_call", "--model-type", "openai_model", ...POLICY];
    const timed = await runGym(args, { cwd: d.path, env: { GYM_TIMING: "1" } });
    expect(timed.code).toBe(0);
    const marks = timed.stderr.split("\n").filter((l) => l.startsWith("[timing]"));
    const labels = marks.map((l) => l.replace(/^\[timing\]\s+[\d.]+ ms\s+\+\s*[\d.]+ ms\s+/, ""));
    expect(labels[0]).toBe("resolve: start");
    expect(labels).toContain("resolve: include tree");
    expect(labels.at(-1)).toBe("env resolve: write");
    const times = marks.map((l) => Number(/^\[timing\]\s+([\d.]+) ms/.exec(l)![1]));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(timed.stdout).not.toContain("[timing]");
    expect((parse(timed.stdout) as Record<string, unknown>).policy_model_name).toBe("tiny");
    const plain = await runGym(args, { cwd: d.path, env: { GYM_TIMING: undefined } });
    expect(plain.stderr).not.toContain("[timing]");
  });
});

describe("gym env validate routing", () => {
  test("NAME and --manifest together is a usage error; a missing manifest is a clear error", async () => {
    await using d = await tempDir();
    const both = await runGym(["env", "validate", "x", "--manifest", "m.yaml"], { cwd: d.path });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("select a catalog name or --manifest, not both");
    const one = await runGym(["env", "validate", "--manifest", "m.yaml"], { cwd: d.path });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/Environment manifest '.*m\.yaml' was not found/);
  });
});
