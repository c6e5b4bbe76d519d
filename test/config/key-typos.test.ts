import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { KNOWN_TOP_LEVEL_KEYS, misspelledKeys } from "../../src/config/key-typos.ts";
import { ROLLOUT_KEYS } from "../../src/rollout/config.ts";
import { runGym, tempDir } from "../helpers/tmp.ts";

const ASSETS = join(import.meta.dir, "..", "..", "assets");

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name) && p.includes("/configs/")) out.push(p);
  }
  return out;
}

describe("misspelled top-level keys", () => {
  test("a key close to a known one is reported with the known key; others are not", () => {
    expect(misspelledKeys({ requre_complete: true, num_repeat: 2, my_own_value: 1, limt: 3 }, [])).toEqual([
      ["requre_complete", "require_complete"],
      ["num_repeat", "num_repeats"],
      ["limt", "limit"],
    ]);
    expect(misspelledKeys({ policy_modell: {} }, ["policy_modell"])).toEqual([]);
  });

  test("every key the rollout driver reads is known", () => {
    for (const k of ROLLOUT_KEYS) expect(KNOWN_TOP_LEVEL_KEYS.has(k)).toBe(true);
  });

  test("no shipped config has a top-level scalar key that reads as a typo", () => {
    const files = yamlFiles(ASSETS);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const doc = parse(readFileSync(f, "utf8")) as Record<string, unknown> | null;
      if (!doc || typeof doc !== "object") continue;
      const mappings = Object.keys(doc).filter((k) => doc[k] !== null && typeof doc[k] === "object" && !Array.isArray(doc[k]));
      expect({ file: f, typos: misspelledKeys(doc, mappings) }).toEqual({ file: f, typos: [] });
    }
  });

  test("gym warns once, with a did-you-mean, and still succeeds", async () => {
    await using dir = await tempDir();
    const r = await runGym(["env", "resolve", "--resources-server", "example_single_tool_call", "--model-type", "scripted_model", "+requre_complete=true"], { cwd: dir.path });
    expect(r.code).toBe(0);
    const hits = r.stderr.split("\n").filter((l) => l.includes("requre_complete"));
    expect(hits.length).toBe(1);
    expect(hits[0]).toContain("Did you mean `require_complete`?");
  });
});
