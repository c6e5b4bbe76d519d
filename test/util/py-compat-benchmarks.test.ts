/** Python semantics benchmark preparers depend on (facts computed once with CPython 3). */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { pyDumps } from "../../src/util/py-json-dumps.ts";
import { PyRandom } from "../../src/util/py-random.ts";
import { NAMESPACE_URL, uuid5 } from "../../src/util/uuid5.ts";

describe("PyRandom", () => {
  test("random.Random(12345).shuffle(list(range(10)))", () => {
    const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    new PyRandom(12345n).shuffle(x);
    expect(x).toEqual([8, 7, 3, 5, 1, 2, 9, 4, 0, 6]);
  });
  test.each([
    ["What is 2+2?", ["i3", "i2", "i1", "c"]],
    ["Which gas is noble?", ["c", "i2", "i1", "i3"]],
    ["x", ["i2", "i1", "c", "i3"]],
  ])("seeded by md5(%p), as gpqa's prepare.py does", (q, order) => {
    const c = ["c", "i1", "i2", "i3"];
    new PyRandom(BigInt(`0x${createHash("md5").update(q).digest("hex")}`)).shuffle(c);
    expect(c).toEqual(order);
  });
});

test.each([
  ["What is 2+2?", "28648f7f-9ed1-5f64-bd73-8369fe983e31"],
  ["x", "4cd605e7-afa2-5360-b5b9-c5e9fb5c76f4"],
])("uuid5(NAMESPACE_URL, %p)", (name, want) => {
  expect(uuid5(NAMESPACE_URL, name)).toBe(want);
});

describe("json.dumps", () => {
  test("ensure_ascii on (default) and off; Python float repr", () => {
    const v = { a: "é\u2028😀", b: 1e-7, c: 1e21, d: 0.5, e: 1e16, f: [1, true, null] };
    expect(pyDumps(v)).toBe('{"a": "\\u00e9\\u2028\\ud83d\\ude00", "b": 1e-07, "c": 1e+21, "d": 0.5, "e": 1e+16, "f": [1, true, null]}');
    expect(pyDumps(v, false)).toBe('{"a": "é\u2028😀", "b": 1e-07, "c": 1e+21, "d": 0.5, "e": 1e+16, "f": [1, true, null]}');
    expect(pyDumps(123456789012345680)).toBe("1.2345678901234568e+17");
  });
});
