import { describe, expect, test } from "bun:test";
import { findMissing } from "../../src/config/missing.ts";

describe("findMissing (§4.7)", () => {
  test("dotted paths with list indices, segment arrays, in document order", () => {
    const dict = { a: "???", b: { c: [1, "???", { d: "???" }], e: { f: "??? not missing" } }, "": { g: "???" }, l: [["???"]] };
    expect(findMissing(dict)).toEqual([
      { path: "a", segs: ["a"] },
      { path: "b.c[1]", segs: ["b", "c", "1"] },
      { path: "b.c[2].d", segs: ["b", "c", "2", "d"] },
      { path: "g", segs: ["", "g"] },
      { path: "l[0][0]", segs: ["l", "0", "0"] },
    ]);
  });

  test("a prefix and starting segments carry into every path; a top-level ??? is the prefix itself", () => {
    expect(findMissing({ x: ["???"] }, "root", ["root"])).toEqual([{ path: "root.x[0]", segs: ["root", "x", "0"] }]);
    expect(findMissing("???", "k", ["k"])).toEqual([{ path: "k", segs: ["k"] }]);
    expect(findMissing({ a: 1, b: [null, true] })).toEqual([]);
  });
});
