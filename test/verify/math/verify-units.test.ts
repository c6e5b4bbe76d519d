// Upstream's non-table tests (test_precision, test_configs) and our own bad-input and determinism cases.
import { describe, expect, test } from "bun:test";
import { Budget, type Node } from "../../../src/verify/math/node.ts";
import { exprEq } from "../../../src/verify/math/compare.ts";
import { parse, verify } from "../../../src/verify/math/verify.ts";

const num = (n: bigint, d = 1n, float = false): Node => ({ t: "num", v: { n, d }, float });
const cmp = (a: Node, b: Node, places: number) =>
  exprEq(a, b, { floatRounding: places, strict: true, allowSetRelation: false }, new Budget(1e5));
const both = { targets: ["latex", "expr"] as ("latex" | "expr")[], boxedPriority: 0 };

describe("float rounding (upstream test_precision)", () => {
  const third = num(1n, 3n);
  const f0333 = num(333n, 1000n, true);
  test("1/3 vs 0.333 equal at 3 places, not at 4", () => {
    expect(cmp(third, f0333, 3)).toBe(true);
    expect(cmp(third, f0333, 4)).toBe(false);
  });
  test("1/3 + 1 vs 1.333 equal at 3 places, not at 4", () => {
    const sum: Node = { t: "add", args: [third, num(1n)] };
    const f1333 = num(1333n, 1000n, true);
    expect(cmp(sum, f1333, 3)).toBe(true);
    expect(cmp(sum, f1333, 4)).toBe(false);
  });
  test("$\\frac{1}{3}$ vs 0.3333 at 4 places from text", () => {
    expect(verify(parse("$\\frac{1}{3}$", both), parse("0.3333$", both), { floatRounding: 4, strict: true, allowSetRelation: false })).toBe(true);
  });
});

describe("boxed priority (upstream test_configs)", () => {
  test("\\boxed{1} extracts once with the default priority, not at all when disabled", () => {
    expect(parse("\\boxed{1}", { targets: ["latex"], fallback: false })).toHaveLength(1);
    expect(parse("\\boxed{1}", { targets: ["latex"], boxedPriority: -1, fallback: false })).toHaveLength(0);
  });
  test("'final answer is' wins over a boxed answer at priority 100", () => {
    const got = parse("final answer is $9999$, \\boxed{1}", { targets: ["latex"], boxedPriority: 100, fallback: false });
    expect(got[0]).toEqual(num(9999n));
  });
});

// Each input must be decided quickly, without throwing, and the same way every time.
const BAD: [string, string, boolean][] = [
  ["$10^{10^{10}}$", "$10^{10^{10}}$", true],
  ["$10^{10^{10}}$", "$10^{10^{10}}+1$", false],
  ["$1000!$", "$999! \\cdot 1000$", true],
  ["$1000!$", "$1001!$", false],
  ["$2$", "\\boxed{", false],
  ["$2$", "\\boxed{2", false],
  ["$2$", "x".repeat(1_000_000), false],
  ["$2$", `The answer is $${"1+".repeat(500_000)}1$`, false],
  ["$2$", "1 ".repeat(500_000), false],
  ["$2$", `\\boxed{2${"{".repeat(100_000)}`, false],
  // Nesting deeper than the parser's limit (200) is not parsed (upstream: Python's recursion limit).
  ["$2$", `$${"(".repeat(5000)}2${")".repeat(5000)}$`, false],
  ["$2$", `$${"(".repeat(50)}2${")".repeat(50)}$`, true],
  ["$2$", "$\\frac{\\frac{\\frac{}{}}{}$ ]]] \\left( \\sqrt[", false],
  ["$2^{2^{2^{2^{2^{2}}}}}$", "$2^{2^{2^{2^{2^{2}}}}}+0$", true],
];

describe("bad input: bounded and deterministic", () => {
  test.each(BAD.map(([g, p, want], i) => [i, g, p, want] as const))("input %i", (_i, g, p, want) => {
    const t0 = performance.now();
    const verdicts = [0, 1, 2].map(() => verify(parse(g), parse(p)));
    // Generous bound (shared machine); the point is "seconds, not hours".
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(verdicts).toEqual([want, want, want]);
  });
});
