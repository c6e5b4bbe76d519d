import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runGym, tempDir } from "../helpers/tmp.ts";

const FIX = join(import.meta.dir, "..", "fixtures", "catalog");
const A = join(FIX, "root_a");
const B = join(FIX, "root_b");
const DIRS = ["--search-dir", A, "--search-dir", B];

type Row = { name: string; kind: string; root: string; domain: string | null; agent?: string | null; num_repeats?: number | null };

/** Run gym in an empty cwd so only the fixture roots and the embedded root are searched. */
async function gym(args: string[], env: Record<string, string | undefined> = {}) {
  await using dir = await tempDir();
  return await runGym(args, { cwd: dir.path, env: { NEMO_GYM_EXTRA_ROOTS: undefined, ...env } });
}

function json<T>(stdout: string): T {
  // JSON purity: stdout is exactly one JSON value.
  return JSON.parse(stdout) as T;
}

describe("gym list", () => {
  test("benchmarks --json: one JSON array on stdout, fixture rows with agent and repeats", async () => {
    const r = await gym(["list", "benchmarks", "--json", ...DIRS]);
    expect(r.code).toBe(0);
    const rows = json<Row[]>(r.stdout);
    expect(Array.isArray(rows)).toBe(true);
    const aime = rows.find((x) => x.name === "aime24")!;
    expect(aime).toMatchObject({ kind: "benchmark", domain: "math", agent: "aime24_agent", num_repeats: 32, root: B });
    expect(rows.find((x) => x.name === "livecodebench/v5")?.root).toBe(B);
    expect(rows.every((x) => x.kind === "benchmark")).toBe(true);
  });

  test("human table with NAME/DOMAIN/DESCRIPTION and the root of non-embedded rows", async () => {
    const r = await gym(["list", "resources-servers", ...DIRS]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+DOMAIN\s+VERIFIED\s+DESCRIPTION\s+ROOT$/);
    const mcqa = lines.find((l) => l.startsWith("mcqa "))!;
    expect(mcqa).toContain("Plugin build of MCQA");
    expect(mcqa).toContain(A);
  });

  test("NAME inspects one entry (object with --json)", async () => {
    const r = await gym(["list", "models", "openai_model/OpenAI/gpt-5", "--json", ...DIRS]);
    expect(r.code).toBe(0);
    const obj = json<Row & { description: string; path: string }>(r.stdout);
    expect(Array.isArray(obj)).toBe(false);
    expect(obj).toMatchObject({ name: "openai_model/OpenAI/gpt-5", kind: "model", description: "GPT-5 through the OpenAI API" });
    expect(obj.path).toBe(join(B, "responses_api_models/openai_model/configs/OpenAI/gpt-5.yaml"));
  });

  test("unknown NAME: did-you-mean on stderr, exit 1, nothing on stdout", async () => {
    const r = await gym(["list", "benchmarks", "aime42", "--json", ...DIRS]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Unknown benchmark 'aime42'. Did you mean `aime24`?");
  });

  test("a name of the other kind points at the right command", async () => {
    const r = await gym(["list", "benchmarks", "circle_count", ...DIRS]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("'circle_count' is a environment, not a benchmark. Try `gym list environments circle_count`.");
  });

  test("environments: both kinds by default, --kind and --domain filter; empty result message", async () => {
    const all = json<Row[]>((await gym(["list", "environments", "--json", ...DIRS])).stdout);
    expect(new Set(all.filter((x) => x.root === A || x.root === B).map((x) => x.kind))).toEqual(new Set(["environment", "benchmark"]));
    const games = json<Row[]>((await gym(["list", "environments", "--kind", "environment", "--domain", "games", "--json", ...DIRS])).stdout);
    // The fixture roots' games (the embedded bundles add their own, e.g. blackjack).
    expect(games.filter((x) => x.root === A || x.root === B).map((x) => x.name)).toEqual(["circle_count", "circle_count/hard"]);
    expect(games.every((x) => x.domain === undefined || x.domain === "games")).toBe(true);
    const none = await gym(["list", "environments", "--domain", "no_such_domain", ...DIRS]);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe("No environments found.");
  });

  test("--search-dir replaces NEMO_GYM_EXTRA_ROOTS (D5); without it the variable is used", async () => {
    const viaEnv = json<Row[]>((await gym(["list", "benchmarks", "--json"], { NEMO_GYM_EXTRA_ROOTS: `${A}:${B}` })).stdout);
    expect(viaEnv.map((x) => x.name)).toContain("my_bench");
    const replaced = json<Row[]>((await gym(["list", "benchmarks", "--json", "--search-dir", B], { NEMO_GYM_EXTRA_ROOTS: A })).stdout);
    expect(replaced.map((x) => x.name)).not.toContain("my_bench");
    expect(replaced.map((x) => x.name)).toContain("aime24");
  });

  test("override tokens work like flags (+component_name, +json)", async () => {
    const r = await gym(["list", "agents", "+component_name=simple_agent", "+json=true", ...DIRS]);
    expect(r.code).toBe(0);
    expect(json<Row>(r.stdout).name).toBe("simple_agent");
  });

  test("an unknown flag is a usage error with a did-you-mean (D11)", async () => {
    const r = await gym(["list", "benchmarks", "--jsn"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unrecognized arguments: --jsn");
    expect(r.stderr).toContain("Did you mean `--json`?");
  });
});

describe("gym search", () => {
  test("a single positional is the QUERY over the environment catalog", async () => {
    const rows = json<Row[]>((await gym(["search", "circel", "--json", ...DIRS])).stdout);
    expect(rows.map((x) => x.name)).toEqual(expect.arrayContaining(["circle_count", "circle_count/hard"]));
    expect(rows.every((x) => x.kind === "environment" || x.kind === "benchmark")).toBe(true);
  });

  test("TYPE narrows the search; table output", async () => {
    const r = await gym(["search", "resources-servers", "jduge", ...DIRS]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+DOMAIN/);
    expect(r.stdout).toContain("math_with_judge");
    expect(r.stdout).not.toContain("aime24");
  });

  test("no match: message on stdout (exit 0), [] with --json", async () => {
    const r = await gym(["search", "benchmarks", "zzqqxxyy", ...DIRS]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("No benchmarks match 'zzqqxxyy'.");
    const j = await gym(["search", "zzqqxxyy", "--json", ...DIRS]);
    expect(json<unknown[]>(j.stdout)).toEqual([]);
  });

  test("bad TYPE is an invalid choice with did-you-mean; missing QUERY is a usage error", async () => {
    const bad = await gym(["search", "benchmark", "aime"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid choice: 'benchmark'");
    expect(bad.stderr).toContain("Did you mean `benchmarks`?");
    const missing = await gym(["search"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("QUERY");
  });
});
