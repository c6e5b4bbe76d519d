/** config/'s accessor: every read is interpolated, errors name the key (never swallowed), globals are typed. */
import { describe, expect, test } from "bun:test";
import { configAccess } from "../../src/config/access.ts";
import { downloadDataset } from "../../src/dataset/hub.ts";
import { ConfigError } from "../../src/errors.ts";

const dict = {
  base: "http://127.0.0.1:9",
  port: 8123,
  dry_run: "${flag}",
  flag: true,
  python_executable: "${py}",
  py: "/usr/bin/python3",
  srv: { responses_api_models: { m: { base_url: "${base}/v1", port: "${port}", nested: { list: ["${port}", "x"] } } } },
  broken: "${no_such_key}",
};

describe("configAccess", () => {
  test("at / read / leaf resolve interpolations, keep types, and return undefined for absent keys", () => {
    const c = configAccess({ dict });
    expect(c.at(["srv", "responses_api_models", "m", "base_url"])).toBe("http://127.0.0.1:9/v1");
    expect(c.read("port")).toBe(8123);
    expect(c.read("absent")).toBeUndefined();
    expect(c.leaf({ name: "srv", serverType: "responses_api_models", implementation: "m" })).toEqual({
      base_url: "http://127.0.0.1:9/v1",
      port: 8123,
      nested: { list: [8123, "x"] },
    });
  });

  test("globals() hands out the documented keys interpolated and typed", () => {
    const g = configAccess({ dict }).globals();
    const dry: boolean | undefined = g.dry_run;
    expect(dry).toBe(true);
    expect(g.python_executable).toBe("/usr/bin/python3");
    expect(Object.hasOwn(g, "head_server")).toBe(false);
  });

  test("a key that does not resolve is a ConfigError naming it, with the file position when known", () => {
    const c = configAccess({ dict, locate: (path) => (path[0] === "broken" ? { file: "env.yaml", line: 7, col: 9 } : undefined) });
    let err: unknown;
    try {
      c.read("broken");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe("broken");
    expect((err as ConfigError).location).toEqual({ file: "env.yaml", line: 7, col: 9 });
  });

  test("typed helpers: str stringifies numbers, bool reads the strings, choice names the allowed values", () => {
    const c = configAccess({ dict: { v: 1, b: "True", m: "zip" } });
    expect(c.str("v")).toBe("1");
    expect(c.bool("b", false)).toBe(true);
    expect(() => c.choice("m", ["a", "b"], undefined)).toThrow("m must be one of a, b, got 'zip'");
  });
});

describe("readers that used to swallow errors", () => {
  test("collate's Hugging Face download reports an hf_token that does not resolve, instead of 'needs hf_token'", async () => {
    const entry = { agent: "a", name: "d", type: "train", path: "/nonexistent/x.jsonl", repeats: 1, config: { source: { type: "huggingface", repo_id: "o/r", artifact_fpath: "t.jsonl" } } };
    const p = downloadDataset(entry, "huggingface", { dict: { hf_token: "${oc.env:GYM_TEST_NO_SUCH_VAR}" }, servers: [], roots: [] });
    await expect(p).rejects.toThrow("Environment variable 'GYM_TEST_NO_SUCH_VAR' not found");
  });
});
