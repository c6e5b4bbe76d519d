/** abstention: upstream's helper tests (resources_servers/abstention/tests/test_app.py) as data. */
import { describe, expect, test } from "bun:test";
import { normalizeAnswer, parseAbcStrict } from "../../src/components/resources/abstention.ts";
import { lastBoxedInner } from "../../src/verify/choices/boxed.ts";

describe("abstention helpers", () => {
  test.each([
    ["The answer is \\boxed{42}", "42"], ["No boxed answer here", undefined], ["\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"],
    ["\\boxed{wrong} then \\boxed{right}", "right"], ["\\boxed{[IDK]}", "[IDK]"], ["\\boxed{}", ""], ["\\boxed{unclosed", undefined],
  ])("boxed(%p)", (t, want) => expect(lastBoxedInner(t)).toBe(want as string | undefined));

  test.each([
    ["Hello World", "hello world"], ["The quick brown fox", "quick brown fox"], ["hello, world!", "hello world"],
    ["  multiple   spaces  ", "multiple spaces"], ["[IDK]", "idk"],
  ])("normalizeAnswer(%p)", (t, want) => expect(normalizeAnswer(t)).toBe(want));

  test.each([
    ["A", "A"], ["B", "B"], ["C", "C"], ["Some reasoning\nA", "A"], ["The grade is A based on analysis", "A"],
    ["no clear grade here", "B"], ["  C  ", "C"], ["reasoning\nmore reasoning\nC", "C"],
  ])("parse grade %p", (t, want) => expect(parseAbcStrict(t)).toBe(want as "A"));
});
