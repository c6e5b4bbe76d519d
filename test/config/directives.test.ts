import { describe, expect, test } from "bun:test";
import { applyDirectives } from "../../src/config/directives.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { locationOf } from "../../src/config/yaml-locations.ts";

function run(yaml: string) {
  const layer = parseConfigText(yaml, "d.yaml");
  applyDirectives(layer);
  return layer;
}

describe("directives (§4.6)", () => {
  test("a config without directives is left as it is, values and positions", () => {
    const text = "_inherit_from: root_key_is_plain\na:\n  b: [{c: '${copy:x}'}]\n  s: 'not ${copy:x} alone'\n";
    const layer = parseConfigText(text, "d.yaml");
    const before = structuredClone(layer.dict);
    const a = layer.dict.a;
    applyDirectives(layer);
    expect(layer.dict).toEqual(before);
    expect(layer.dict.a).toBe(a);
    expect(locationOf(layer.locs, ["a", "s"])).toEqual({ file: "d.yaml", line: 4, col: 6 });
  });
  test("a directive deep in the tree is still applied", () => {
    const { dict } = run("src: {v: 1}\nl1:\n  l2:\n    l3:\n      l4: ${copy:src}\n");
    expect(dict).toEqual({ src: { v: 1 }, l1: { l2: { l3: { l4: { v: 1 } } } } });
  });
  test("${inherit_from:x} moves the source", () => {
    const { dict } = run("test_resource:\n  a: 1\npolicy_model: ${inherit_from:test_resource}\n");
    expect(dict).toEqual({ policy_model: { a: 1 } });
  });
  test("a nested inherit source leaves its empty parent", () => {
    const { dict } = run("a:\n  b:\n    c: {x: 1}\na_prime:\n  b_prime: ${inherit_from:a.b.c}\n");
    expect(dict).toEqual({ a: { b: {} }, a_prime: { b_prime: { x: 1 } } });
  });
  test("map form merges local keys over the copy; several inheritors all get full copies", () => {
    const { dict } = run("gen:\n  x: 1\n  y: 2\none:\n  _inherit_from: gen\n  y: 20\ntwo:\n  _inherit_from: gen\n");
    expect(dict).toEqual({ one: { x: 1, y: 20 }, two: { x: 1, y: 2 } });
  });
  test("_copy keeps the source", () => {
    const { dict } = run("gen: {x: 1}\nc1: ${copy:gen}\nc2:\n  _copy: gen\n  z: 3\n");
    expect(dict).toEqual({ gen: { x: 1 }, c1: { x: 1 }, c2: { x: 1, z: 3 } });
  });
  test("sources come from the snapshot, so a later inheritor still sees a moved source", () => {
    const { dict } = run("a: ${inherit_from:src}\nsrc: {v: 1}\nb: ${inherit_from:src}\n");
    expect(dict).toEqual({ a: { v: 1 }, b: { v: 1 } });
  });
  test("_delete_key removes inherited and local keys; an absent key is an error", () => {
    const { dict } = run("gen: {x: 1, y: 2, z: 3}\nt:\n  _inherit_from: gen\n  _delete_key: 'x, z'\n");
    expect(dict).toEqual({ t: { y: 2 } });
    expect(() => run("t:\n  a: 1\n  _delete_key: nope\n")).toThrow(/_delete_key names 'nope'/);
  });
  test("a missing source is InheritPathNotFound with the segments and file position", () => {
    expect(() => run("x:\n  y: ${inherit_from:no.such}\n")).toThrow("d.yaml:2:6: Path specified does not exist in config: ['no', 'such']");
  });
  test("a ??? source makes the target ???", () => {
    expect(run("src: ???\nt: ${copy:src}\n").dict.t).toBe("???");
    expect(run("src: ???\nt:\n  _copy: src.inner\n").dict.t).toBe("???");
  });
  test("moved values keep their original file positions", () => {
    const l = run("gen:\n  deep:\n    v: 1\nt: ${inherit_from:gen}\n");
    expect(locationOf(l.locs, ["t", "deep", "v"])).toEqual({ file: "d.yaml", line: 3, col: 8 });
  });
});
