import { describe, expect, test } from "bun:test";
import { missingFields, parsePyFormat, pyFormat, PyFormatError } from "../../src/util/py-format.ts";

// Cases: [template, values, expected] — what CPython's str.format gives.
const RENDERS: [string, Record<string, unknown>, string][] = [
  ["Q: {question}\nA: {answer}", { question: "2+2?", answer: "4" }, "Q: 2+2?\nA: 4"],
  ["put it in \\boxed{{}} please: {question}", { question: "x" }, "put it in \\boxed{} please: x"],
  ["{{literal}} and {{{name}}}", { name: "v" }, "{literal} and {v}"],
  ["{a}{a}{b}", { a: 1, b: true }, "11True"],
  ["{x!r}", { x: "it's" }, `"it's"`],
  ["{x!s}", { x: null }, "None"],
  ["no fields }} here", {}, "no fields } here"],
  ["{question}", { question: "a {b} c" }, "a {b} c"], // values are not re-formatted
];

describe("pyFormat (Python str.format)", () => {
  test.each(RENDERS)("%p", (tpl, values, want) => {
    expect(pyFormat(tpl, values)).toBe(want);
  });

  test.each([
    ["a } b", "Single '}'"],
    ["a { b", "Single '{'"],
    ["{}", "positional"],
    ["{0}", "positional"],
    ["{x:>10}", "format specs"],
    ["{x.y}", "plain names"],
    ["{x[0]}", "plain names"],
  ])("refuses %p clearly", (tpl, why) => {
    expect(() => parsePyFormat(tpl)).toThrow(PyFormatError);
    expect(() => parsePyFormat(tpl)).toThrow(why);
  });

  test("missing placeholders are found before any render; render of an absent field is a KeyError", () => {
    const t = parsePyFormat("{question} {expected_answer} {generation}");
    expect(missingFields(t, ["question", "expected_answer", "generated_answer"])).toEqual(["generation"]);
    expect(() => pyFormat("{nope}", {})).toThrow("KeyError: 'nope'");
  });
});
