/**
 * What happens to a LaTeX span that fails to parse (issue 13: "blacklisting of failed LaTeX spans").
 * math-verify 0.8.0 as tagged (src/math_verify/parser.py, extract_target_from_pred) tries every match of
 * a priority group rightmost-end first and moves on after a failed one; nothing excludes the failed
 * span's range, so a plain number inside it is still extracted by the expression target of the same
 * priority, and the failed span's text is kept as the first-match fallback string. These cases pin
 * that behaviour (a deliberate change would be a different reference version).
 */
import { expect, test } from "bun:test";
import { sympyStr } from "../../../src/verify/math/print.ts";
import { parse, verify } from "../../../src/verify/math/verify.ts";

const show = (text: string) => parse(text, { targets: ["expr", "latex"] }).map((c) => (typeof c === "string" ? `str:${c}` : sympyStr(c)));

// [generation, candidates (parsed first, then the fallback string)]
const CASES: [string, string[]][] = [
  ["The value is $7 + \\frac{}{}$", ["7", "str:7 + \\frac{}{}"]],
  ["We get $x = 5 ^ ^$", ["5", "str:x = 5 ^ ^"]],
  ["Result: $12 \\times$ done", ["12", "str:12 \\times"]],
  // No plain number stands alone inside these spans, so only the fallback string is left.
  ["so $\\frac{3}{}$", ["str:\\frac{3}{}"]],
  ["$\\sqrt{}8$", ["str:\\sqrt{}8"]],
];
test.each(CASES)("parse(%p) = %p", (text, want) => expect(show(text)).toEqual(want));

test("a number inside a failed span can score (no span is excluded)", () => {
  const gold = parse("\\boxed{7}", { targets: ["latex"] });
  expect(verify(gold, parse("The value is $7 + \\frac{}{}$", { targets: ["expr", "latex"] }))).toBe(true);
  expect(verify(gold, parse("so $\\frac{7}{}$", { targets: ["expr", "latex"] }))).toBe(false);
  // A span that parses wins over the number inside it.
  const whole = parse("The value is $7 + \\frac{1}{2}$", { targets: ["expr", "latex"] });
  expect(verify(parse("\\boxed{15/2}", { targets: ["latex"] }), whole.slice(0, 1))).toBe(true);
  expect(verify(gold, whole.slice(0, 1))).toBe(false);
});
