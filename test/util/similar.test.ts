import { describe, expect, test } from "bun:test";
import { closestMatch, similarity } from "../../src/util/similar.ts";

describe("similarity (difflib ratio)", () => {
  // Values computed by hand from the Ratcliff/Obershelp definition 2*M/T.
  test("identical and disjoint strings", () => {
    expect(similarity("abc", "abc")).toBe(1);
    expect(similarity("abc", "xyz")).toBe(0);
    expect(similarity("", "")).toBe(1);
  });
  test("partial matches use the longest block recursively", () => {
    // "abcd" vs "bcde": longest block "bcd" (3) → 2*3/8
    expect(similarity("abcd", "bcde")).toBeCloseTo(0.75, 10);
    // "--confg" vs "--config": blocks "--conf" (6) + "g" (1) → 2*7/15
    expect(similarity("--confg", "--config")).toBeCloseTo(14 / 15, 10);
  });
  test("closestMatch applies the cutoff and picks the best", () => {
    expect(closestMatch("evl", ["list", "eval", "env"])).toBe("eval");
    expect(closestMatch("zzz", ["list", "eval"])).toBeUndefined();
  });
});
