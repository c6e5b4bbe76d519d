import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { runGym, tempDir } from "../helpers/tmp.ts";

function tree(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tree(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`])).sort();
}

describe("gym env init", () => {
  test("--resources-server scaffolds the component layout; a second run leaves it alone", async () => {
    await using d = await tempDir();
    const r = await runGym(["env", "init", "--resources-server", "word_len"], { cwd: d.path });
    expect(r.code).toBe(0);
    const dir = join(d.path, "resources_servers", "word_len");
    expect(tree(dir)).toEqual(["README.md", "app.py", "configs/word_len.yaml", "data/.gitignore", "data/example.jsonl", "requirements.txt", "tests/test_app.py"]);
    const cfg = parse(readFileSync(join(dir, "configs", "word_len.yaml"), "utf8"));
    expect(cfg.word_len.resources_servers.word_len.entrypoint).toBe("app.py");
    expect(cfg.word_len_simple_agent.responses_api_agents.simple_agent.datasets).toEqual([{ name: "example", type: "example", jsonl_fpath: "resources_servers/word_len/data/example.jsonl" }]);
    const rows = readFileSync(join(dir, "data", "example.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.length).toBe(5);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("# Licensing information");

    // The scaffold's config passes the full no-model parse.
    const v = await runGym(["env", "validate", "--resources-server", "word_len"], { cwd: d.path });
    expect(v.stdout).toContain("Config is valid");
    expect(v.code).toBe(0);

    const again = await runGym(["env", "init", "+entrypoint=resources_servers/word_len"], { cwd: d.path });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Folder already exists: ${dir}. Exiting init.`);
  });

  test("mutually exclusive flags and workload-only options exit 2 with their messages", async () => {
    await using d = await tempDir();
    const both = await runGym(["env", "init", "--resources-server", "a", "--benchmark", "b"], { cwd: d.path });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("not allowed with argument --resources-server");
    const opts = await runGym(["env", "init", "--resources-server", "a", "--reward-range", "0", "1"], { cwd: d.path });
    expect(opts.code).toBe(2);
    expect(opts.stderr).toContain("--profile, --reuse-verifier, and reward options require --environment or --benchmark");
    const half = await runGym(["env", "init", "--environment", "e", "--reward-range", "0"], { cwd: d.path });
    expect(half.code).toBe(2);
    expect(half.stderr).toContain("expected 2 arguments");
    expect(existsSync(join(d.path, "resources_servers"))).toBe(false);
  });
});
