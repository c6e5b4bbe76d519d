import { describe, expect, test } from "bun:test";
import { realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { loadIncludeTree } from "../../src/config/include-tree.ts";
import { tempDir } from "../helpers/tmp.ts";
import { writeTree } from "./_write.ts";

describe("config_paths include tree (§4.2)", () => {
  test("upstream worked example: post-order merge, later sibling beats an earlier sibling's subtree", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, {
      "first.yaml": "config_paths: [first_inner.yaml]\nfrom_first: 1\n",
      "first_inner.yaml": "contested: first_inner\n",
      "second.yaml": "config_paths: [second_middle.yaml]\n",
      "second_middle.yaml": "config_paths: [second_inner.yaml]\n",
      "second_inner.yaml": "contested: second_inner\n",
    });
    const t = loadIncludeTree(["first.yaml", "second.yaml"], [dir.path]);
    expect(t.merged.dict.contested).toBe("second_inner");
    expect(t.flat).toEqual(["first.yaml", "second.yaml", "first_inner.yaml", "second_middle.yaml", "second_inner.yaml"]);
    expect(t.files.map((f) => f.slice(f.lastIndexOf("/") + 1))).toEqual([
      "first_inner.yaml",
      "first.yaml",
      "second_inner.yaml",
      "second_middle.yaml",
      "second.yaml",
    ]);
  });

  test("an includer beats what it includes; a later root beats both", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, {
      "base.yaml": "config_paths: [inner.yaml]\nb: base\n",
      "inner.yaml": "b: inner\nc: inner\n",
      "override.yaml": "a: override\n",
    });
    const { merged } = loadIncludeTree(["base.yaml", "override.yaml"], [dir.path]);
    expect(merged.dict).toMatchObject({ a: "override", b: "base", c: "inner" });
  });

  test("one file reached through two different entries is merged twice, each copy independent", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, {
      "a.yaml": "config_paths: [shared.yaml]\n",
      "x.yaml": "srv:\n  inner:\n    a: 9\n  list: [7]\n",
      "b.yaml": "config_paths: [./shared.yaml]\nsrv:\n  inner:\n    b: 2\n",
      "shared.yaml": "srv:\n  inner:\n    a: 1\n  list: [1, 2]\n",
    });
    // Merge order: shared, a, x, shared again, b. x changes shared's values in the merged tree;
    // the second merge of shared must bring back the file's values, not x's.
    const { merged, files } = loadIncludeTree(["a.yaml", "x.yaml", "b.yaml"], [dir.path]);
    expect(files.filter((f) => f.endsWith("shared.yaml"))).toHaveLength(2);
    expect(merged.dict).toEqual({ config_paths: ["./shared.yaml"], srv: { inner: { a: 1, b: 2 }, list: [1, 2] } });
  });

  test("files are identified by real path through symlinked files and directories", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, { "real/a.yaml": "config_paths: [linked-dir/b.yaml]\na: 1\n", "real/b.yaml": "b: 2\n", "real/c.yaml": "config_paths: [link-to-c.yaml]\n" });
    symlinkSync(join(dir.path, "real"), join(dir.path, "linked-dir"));
    symlinkSync(join(dir.path, "real", "a.yaml"), join(dir.path, "link-to-a.yaml"));
    symlinkSync(join(dir.path, "real", "c.yaml"), join(dir.path, "link-to-c.yaml"));
    const real = realpathSync(dir.path);
    const t = loadIncludeTree(["link-to-a.yaml"], [dir.path]);
    expect(t.files).toEqual([join(real, "real/b.yaml"), join(real, "real/a.yaml")]);
    expect(t.merged.dict).toMatchObject({ a: 1, b: 2 });
    // c.yaml includes itself through a symlink: still a cycle.
    expect(() => loadIncludeTree(["real/c.yaml"], [dir.path])).toThrow("config_paths cycle");
    // A directory or a dangling link is not a config file.
    symlinkSync(join(dir.path, "nowhere.yaml"), join(dir.path, "dangling.yaml"));
    expect(() => loadIncludeTree(["dangling.yaml"], [dir.path])).toThrow("was not found");
    expect(() => loadIncludeTree(["linked-dir"], [dir.path])).toThrow("was not found");
  });

  test("seed precedence: a benchmark including a shared agent config and overriding one field", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, {
      "responses_api_agents/shared/configs/shared.yaml": "my_agent:\n  responses_api_agents:\n    simple_agent:\n      entrypoint: app.py\n      max_steps: 5\n      temperature: 0.1\n",
      "benchmarks/b/config.yaml": "config_paths: [responses_api_agents/shared/configs/shared.yaml]\nmy_agent:\n  responses_api_agents:\n    simple_agent:\n      max_steps: 50\n",
    });
    const { merged } = loadIncludeTree(["benchmarks/b/config.yaml"], [dir.path]);
    expect(merged.dict.my_agent).toEqual({ responses_api_agents: { simple_agent: { entrypoint: "app.py", max_steps: 50, temperature: 0.1 } } });
  });

  test("nested entries are root-relative and the first root that has them wins", async () => {
    await using a = await tempDir();
    await using b = await tempDir();
    writeTree(a.path, { "x/shadow.yaml": "v: plugin\n" });
    writeTree(b.path, { "x/top.yaml": "config_paths: [x/shadow.yaml]\n", "x/shadow.yaml": "v: builtin\n" });
    expect(loadIncludeTree(["x/top.yaml"], [a.path, b.path]).merged.dict.v).toBe("plugin");
  });

  test("duplicate nested includes are loaded once, by their first includer", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, {
      "a.yaml": "config_paths: [common.yaml]\nv: a\n",
      "b.yaml": "config_paths: [common.yaml]\n",
      "common.yaml": "v: common\n",
    });
    const t = loadIncludeTree(["a.yaml", "b.yaml"], [dir.path]);
    expect(t.duplicates).toEqual(["common.yaml"]);
    expect(t.flat).toEqual(["a.yaml", "b.yaml", "common.yaml"]);
    // common merges before a (its includer), so a wins.
    expect(t.merged.dict.v).toBe("a");
  });

  test("a cycle is an error naming the chain", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, { "a.yaml": "config_paths: [b.yaml]\n", "b.yaml": "config_paths: [sub/../a.yaml]\n", "sub/.keep": "" });
    expect(() => loadIncludeTree(["a.yaml"], [dir.path])).toThrow(/config_paths cycle: a\.yaml → b\.yaml → sub\/\.\.\/a\.yaml/);
  });

  test("a missing entry lists every place looked at, and points at the including file", async () => {
    await using a = await tempDir();
    await using b = await tempDir();
    writeTree(a.path, { "top.yaml": "x: 1\nconfig_paths:\n  - nope.yaml\n" });
    let msg = "";
    try {
      loadIncludeTree(["top.yaml"], [a.path, b.path]);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toContain(`${join(a.path, "top.yaml")}:3:5`);
    expect(msg).toContain(`config_paths entry 'nope.yaml' was not found. Looked in:\n  - ${join(a.path, "nope.yaml")}\n  - ${join(b.path, "nope.yaml")}`);
  });

  test("a nested config_paths that is not a list of strings is MalformedConfigPaths", async () => {
    await using dir = await tempDir();
    writeTree(dir.path, { "a.yaml": "config_paths: just_a_string.yaml\n" });
    expect(() => loadIncludeTree(["a.yaml"], [dir.path])).toThrow(/'config_paths' must be a list of paths/);
  });
});
