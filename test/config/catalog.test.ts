import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CatalogError, catalogNames, findCatalogEntry, listCatalog, searchCatalog } from "../../src/config/catalog.ts";
import { tempDir } from "../helpers/tmp.ts";

const FIX = join(import.meta.dir, "..", "fixtures", "catalog");
const A = join(FIX, "root_a");
const B = join(FIX, "root_b");
const ROOTS = [A, B];

const names = (rows: { name: string }[]) => rows.map((r) => r.name);

function write(root: string, rel: string, text: string): void {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

describe("discovery", () => {
  test("benchmarks: flat, nested group and non-config YAML with a benchmark dataset; prompts excluded", () => {
    expect(names(listCatalog("benchmark", ROOTS))).toEqual(["aime24", "broken", "livecodebench/v5", "my_bench", "tau2/configs/airline"]);
  });

  test("environments: config.yaml by directory, flavor files as name/flavor, data/ ignored", () => {
    expect(names(listCatalog("environment", ROOTS))).toEqual(["circle_count", "circle_count/hard"]);
  });

  test("servers: rows are the selector values (name, name/flavor, nested flavors)", () => {
    expect(names(listCatalog("resources_server", ROOTS))).toEqual(["math_with_judge", "math_with_judge/dapo17k", "mcqa", "word_count"]);
    expect(names(listCatalog("model", ROOTS))).toEqual(["openai_model", "openai_model/OpenAI/gpt-5"]);
    expect(names(listCatalog("agent", ROOTS))).toEqual(["simple_agent"]);
  });

  test("an earlier root shadows a later one by name", () => {
    const mcqa = listCatalog("resources_server", ROOTS).find((e) => e.name === "mcqa")!;
    expect(mcqa.root).toBe(A);
    expect(mcqa.description).toBe("Plugin build of MCQA with a stricter answer parser");
    const reversed = listCatalog("resources_server", [B, A]).find((e) => e.name === "mcqa")!;
    expect(reversed.root).toBe(B);
    expect(reversed.description).toBe("Multiple choice question answering");
  });

  test("catalogNames gives the same names without reading metadata", () => {
    expect(catalogNames("benchmark", ROOTS)).toEqual(names(listCatalog("benchmark", ROOTS)));
    expect(catalogNames(["environment", "resources_server"], ROOTS)).toEqual(["circle_count", "circle_count/hard", "math_with_judge", "math_with_judge/dapo17k", "mcqa", "word_count"]);
  });

  test("several kinds together, each shadowed within its own kind", () => {
    const rows = listCatalog(["environment", "benchmark"], ROOTS);
    expect(rows.filter((r) => r.kind === "environment")).toHaveLength(2);
    expect(rows.filter((r) => r.kind === "benchmark")).toHaveLength(5);
    expect(names(rows)).toEqual([...names(rows)].sort());
  });

  test("a nested config.yaml beats a same-named flavor file in one root; roots with no component dirs are fine", async () => {
    await using dir = await tempDir();
    const bench = (n: string) => `x:\n  responses_api_agents:\n    a:\n      datasets:\n        - {name: ${n}, type: benchmark}\n`;
    write(dir.path, "benchmarks/grp/b/config.yaml", bench("nested"));
    write(dir.path, "benchmarks/grp/b.yaml", bench("flat"));
    write(dir.path, "benchmarks/grp/notes.yaml", "just: notes\n");
    const rows = listCatalog("benchmark", [dir.path, join(dir.path, "missing-root")]);
    expect(names(rows)).toEqual(["grp/b"]);
    expect(rows[0]!.path).toEndWith("grp/b/config.yaml");
  });
});

describe("metadata", () => {
  test("benchmark domain/description come from an included server block; agent and repeats from the benchmark dataset", () => {
    const aime = listCatalog("benchmark", ROOTS).find((e) => e.name === "aime24")!;
    expect(aime).toMatchObject({ kind: "benchmark", domain: "math", description: "Math problems graded by a judge model", agent: "aime24_agent", num_repeats: 32, verified: true });
    expect(aime.path).toBe(join(B, "benchmarks/aime24/config.yaml"));
    const lcb = listCatalog("benchmark", ROOTS).find((e) => e.name === "livecodebench/v5")!;
    expect(lcb).toMatchObject({ domain: "coding", agent: "lcb_agent", num_repeats: 1 });
  });

  test("resources server: domain, description, verified, dataset licenses", () => {
    const mwj = listCatalog("resources_server", ROOTS).find((e) => e.name === "math_with_judge")!;
    expect(mwj).toMatchObject({ domain: "math", verified: true, license: "Apache 2.0" });
    const dapo = listCatalog("resources_server", ROOTS).find((e) => e.name === "math_with_judge/dapo17k")!;
    expect(dapo).toMatchObject({ verified: false, license: null, description: "DAPO-17k flavor of the math judge" });
  });

  test("without a description in the YAML, the README's first paragraph describes the row", () => {
    const wc = listCatalog("resources_server", ROOTS).find((e) => e.name === "word_count")!;
    expect(wc.description).toBe("Rewards answers whose length stays within the requested word budget.");
    expect(wc.domain).toBe("instruction_following");
  });

  test("an unparseable file is listed with its error instead of failing the listing", () => {
    const broken = listCatalog("benchmark", ROOTS).find((e) => e.name === "broken")!;
    expect(broken.error).toBeString();
    expect(broken.description).toBeNull();
  });
});

describe("search", () => {
  test("substring of name, domain or description (case-insensitive)", () => {
    expect(names(searchCatalog("AIME", "benchmark", ROOTS))).toEqual(["aime24"]);
    expect(names(searchCatalog("games", "environment", ROOTS))).toEqual(["circle_count", "circle_count/hard"]);
    expect(names(searchCatalog("riddles", "benchmark", ROOTS))).toEqual(["my_bench"]);
  });

  test("close match (ratio ≥ 0.70) against the whole field or one of its tokens", () => {
    expect(names(searchCatalog("jduge", "resources_server", ROOTS))).toContain("math_with_judge");
    expect(names(searchCatalog("circel", "environment", ROOTS))).toEqual(["circle_count", "circle_count/hard"]);
    expect(searchCatalog("zzqqxx", undefined, ROOTS)).toEqual([]);
    // 'mcx' vs 'mcqa' is a ratio of 0.57: below the cutoff and not a substring of any other field.
    expect(names(searchCatalog("mcx", "resources_server", ROOTS))).toEqual([]);
  });

  test("name matches rank before domain/description matches", () => {
    const rows = searchCatalog("math", undefined, ROOTS);
    const first = rows.findIndex((r) => !r.name.includes("math"));
    expect(rows.slice(0, first).every((r) => r.name.includes("math"))).toBe(true);
    expect(names(rows)).toContain("aime24"); // via domain
  });

  test("no kind searches every kind", () => {
    const kinds = new Set(searchCatalog("a", undefined, ROOTS).map((r) => r.kind));
    expect(kinds.size).toBe(5);
  });
});

describe("findCatalogEntry", () => {
  test("finds by name", () => {
    expect(findCatalogEntry("circle_count", ["environment", "benchmark"], ROOTS).kind).toBe("environment");
  });

  test("unknown name: did-you-mean", () => {
    const e = (() => {
      try {
        findCatalogEntry("aime42", "benchmark", ROOTS);
      } catch (err) {
        return err as CatalogError;
      }
    })()!;
    expect(e).toBeInstanceOf(CatalogError);
    expect(e.message).toBe("Unknown benchmark 'aime42'. Did you mean `aime24`?");
    expect(e.exitCode).toBe(1);
  });

  test("a name of another kind says which command lists it", () => {
    expect(() => findCatalogEntry("circle_count", "benchmark", ROOTS)).toThrow(
      "'circle_count' is a environment, not a benchmark. Try `gym list environments circle_count`.",
    );
    expect(() => findCatalogEntry("mcqa", "model", ROOTS)).toThrow("'mcqa' is a resources server, not a model. Try `gym list resources-servers mcqa`.");
  });

  test("nothing close: no suggestion", () => {
    expect(() => findCatalogEntry("qqqqqqqq", "agent", ROOTS)).toThrow(/^Unknown agent 'qqqqqqqq'\.$/);
  });
});
