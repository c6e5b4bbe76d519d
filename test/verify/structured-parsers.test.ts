/** The Python-compatible readers under verify/structured: csv.reader and xmltodict.parse cases computed once with CPython (fixtures), PyYAML's booleans. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { csvRows } from "../../src/verify/structured/csv.ts";
import { parseYaml } from "../../src/verify/structured/parse.ts";
import { xmlToDict } from "../../src/verify/structured/xml.ts";

const fixture = (name: string) => JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "structured", name), "utf8")) as [string, unknown][];
const run = (f: (t: string) => unknown, t: string) => {
  try {
    return f(t);
  } catch (e) {
    return `ERR ${(e as Error).name}: ${(e as Error).message}`;
  }
};

describe("structured readers (outcomes from CPython)", () => {
  test("csv.reader over io.StringIO", () => {
    // Python's _csv.Error prints as "ERR <message>" in the fixture.
    for (const [t, want] of fixture("csv-reader.json")) expect([t, run(csvRows, t)]).toEqual([t, typeof want === "string" ? `ERR Error: ${want.slice(4)}` : want]);
  });
  test("xmltodict.parse, with expat's error messages", () => {
    const cases = fixture("xmltodict.json");
    for (const [t, want] of cases) expect([t, run(xmlToDict, t)]).toEqual([t, want]);
    process.stderr.write(`xmltodict: ${cases.length}/${cases.length} as CPython\n`);
  });
  test("PyYAML booleans (YAML 1.1 without y/n), duplicate keys, merge keys, timestamps", () => {
    expect(parseYaml("on: yes\nn: y\na: 1\na: 2\nb: &x {k: 1}\nc:\n  <<: *x\n  j: 2\nnul: ~")).toEqual({ true: true, n: "y", a: 2, b: { k: 1 }, c: { k: 1, j: 2 }, nul: null });
    expect(parseYaml("d: 2001-12-14")).toEqual({ d: new Date("2001-12-14T00:00:00Z") });
    expect(parseYaml("")).toBeNull();
  });
});
