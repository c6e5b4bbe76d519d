import { describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { parseConfigDict, serializeConfigDict } from "../../src/config/serialize.ts";

describe("YAML emitter", () => {
  const tricky = {
    plain: "hello world",
    url: "http://127.0.0.1:8000/v1",
    interp: "${policy_base_url}",
    words: ["yes", "no", "on", "off", "y", "n", "true", "null", "~", ""],
    numbers: ["1", "0755", "1e3", "1:30", "0x1f", ".5", "-1", "+1"],
    symbols: ["a: b", "a #b", "#c", "- x", "[x]", "{x}", "*a", "&a", "!t", "%p", "@x", "`x", "'q'", '"q"', "x ", " x", "|", ">", "?", "a\nb", "tab\tx", "é"],
    nums: [0, -3, 2.5, 1e21],
    bools: [true, false],
    nil: null,
    empty_map: {},
    empty_list: [],
    nested: { list_of_maps: [{ a: 1, b: { c: [1, [2, 3]] } }, { d: null }], deep: { deeper: { key: "v" } } },
    "key with: colon": 1,
    "123": "numeric key",
  };
  test("round-trips through a YAML 1.1 reader (ours) and a YAML 1.2 reader", () => {
    const text = serializeConfigDict(tricky);
    expect(parseConfigDict(text)).toEqual(tricky);
    expect(parse(text)).toEqual(tricky);
  });
  test("PyYAML layout: lists at the key's indent, nested maps share the dash line", () => {
    expect(serializeConfigDict({ a: [{ x: 1, z: 2 }, "s"], b: { c: 1 } })).toBe("a:\n- x: 1\n  z: 2\n- s\nb:\n  c: 1\n");
  });
  test("an empty dict is {}", () => {
    expect(serializeConfigDict({})).toBe("{}\n");
  });
});
