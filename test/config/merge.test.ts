import { describe, expect, test } from "bun:test";
import { exactParse, parseConfigText } from "../../src/config/load.ts";
import { emptyLayer, mergeDicts, mergeInto } from "../../src/config/merge.ts";
import { locationOf } from "../../src/config/yaml-locations.ts";

describe("OmegaConf merge rules (§4.1)", () => {
  test("maps merge recursively, later scalar wins, earlier key order is kept and new keys appended", () => {
    const out = mergeDicts({ a: { x: 1, y: 2 }, b: 1 }, { c: 3, a: { y: 20, z: 30 } });
    expect(out).toEqual({ a: { x: 1, y: 20, z: 30 }, b: 1, c: 3 });
    expect(Object.keys(out)).toEqual(["a", "b", "c"]);
    expect(Object.keys(out.a as object)).toEqual(["x", "y", "z"]);
  });
  test("a later list replaces the earlier list", () => {
    expect(mergeDicts({ l: [1, 2, 3] }, { l: [9] })).toEqual({ l: [9] });
  });
  test("a later ??? does not clobber a concrete value, a later null does", () => {
    expect(mergeDicts({ a: 1, b: 2 }, { a: "???", b: null })).toEqual({ a: 1, b: null });
    expect(mergeDicts({}, { a: "???" })).toEqual({ a: "???" });
  });
  test("scalar replaces map and map replaces scalar; interpolations stay raw", () => {
    expect(mergeDicts({ a: { x: 1 }, b: 1 }, { a: 5, b: { y: "${a}" } })).toEqual({ a: 5, b: { y: "${a}" } });
  });
  test("inputs are not aliased into the result", () => {
    const src = { a: { x: [1] } };
    const out = mergeDicts({}, src);
    (out.a as { x: number[] }).x.push(2);
    expect(src.a.x).toEqual([1]);
  });
  test("locations follow the winning layer", () => {
    const base = emptyLayer();
    mergeInto(base, parseConfigText("a:\n  x: 1\n  y: 2\n", "one.yaml"));
    mergeInto(base, parseConfigText("a:\n  y: 3\n", "two.yaml"));
    expect(locationOf(base.locs, ["a", "x"])).toEqual({ file: "one.yaml", line: 2, col: 6 });
    expect(locationOf(base.locs, ["a", "y"])).toEqual({ file: "two.yaml", line: 2, col: 6 });
  });
});

describe("YAML loading", () => {
  test("malformed YAML names the file, line and column", () => {
    expect(() => parseConfigText("a: 1\nb: [1, 2\n", "bad.yaml")).toThrow(/Malformed YAML in 'bad.yaml' at line \d+, column \d+/);
  });
  test("YAML 1.1 booleans as PyYAML reads them; dates stay strings; empty file is {}", () => {
    expect(parseConfigText("a: yes\nb: off\nd: 2024-01-02\n", "f.yaml").dict).toEqual({ a: true, b: false, d: "2024-01-02" });
    expect(parseConfigText("", "e.yaml").dict).toEqual({});
  });
  test("a top-level list is an error", () => {
    expect(() => parseConfigText("- 1\n", "l.yaml")).toThrow(/must hold a YAML mapping/);
  });
  test("duplicate keys are an error", () => {
    expect(() => parseConfigText("a: 1\na: 2\n", "d.yaml")).toThrow(/Malformed YAML/);
  });
});

describe("fast and exact YAML paths agree", () => {
  const samples = [
    "y: 1\nn: 2\nurl: http://127.0.0.1:8000/v1\nl: [1, 2.5, -3, 1e3, .inf]\nnested:\n  - {a: b}\n  - c: ${x.y}\n    d: null\n",
    "t: 12:30\no: 0755\nu: 1_000\nb: on\nq: 'yes'\nk: ~\n",
    "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n",
    "s: |\n  line one\n  key: value\nf: >\n  folded\n",
    "",
  ];
  test.each(samples)("%#", (text) => {
    expect(parseConfigText(text, "s.yaml").dict).toEqual(exactParse(text, "s.yaml").dict);
  });
  test("PyYAML 1.1 scalars: sexagesimal, octal, underscores, on/off; y stays a string", () => {
    expect(parseConfigText("t: 12:30\no: 0755\nu: 1_000\nb: on\ny: n\n", "s.yaml").dict).toEqual({ t: 750, o: 493, u: 1000, b: true, y: "n" });
  });
  test("duplicate keys inside list-item maps are caught", () => {
    expect(() => parseConfigText("l:\n- a: 1\n  a: 2\n", "d.yaml")).toThrow(/Malformed YAML/);
    expect(parseConfigText("l:\n- a: 1\n- a: 2\n", "d.yaml").dict).toEqual({ l: [{ a: 1 }, { a: 2 }] });
  });
  test("a fast-path file still reports positions", () => {
    expect(locationOf(parseConfigText("a:\n  b:\n  - c: 1\n", "p.yaml").locs, ["a", "b", "0", "c"])).toEqual({ file: "p.yaml", line: 3, col: 8 });
  });
});

describe("which files need the exact YAML 1.1 reading", () => {
  test.each([
    ["flag: on\n", { flag: true }],
    ["l: [yes, no]\n", { l: [true, false] }],
    ["- a\n", null],
    ["t: 1:30 # time\n", { t: 90 }],
    ["o: [0755]\n", { o: [493] }],
    ["off: 1\n", { false: 1 }],
  ])("%j reads as PyYAML does", (text, want) => {
    if (want === null) expect(() => parseConfigText(text, "x.yaml")).toThrow();
    else expect(parseConfigText(text, "x.yaml").dict).toEqual(want as Record<string, unknown>);
  });
  test("ordinary prose and URLs keep the fast path and still read the same", () => {
    const text = "description: Runs on GPU, no network\nurl: http://10.0.0.1:8000/v1\nhost: 10.0.0.1:8000\nname: yes_or_no\n";
    expect(parseConfigText(text, "x.yaml").dict).toEqual(exactParse(text, "x.yaml").dict);
    expect(parseConfigText(text, "x.yaml").locs.filePath).toEqual([]);
  });
});
