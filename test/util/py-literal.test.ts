/** readPyAssignments: Python data-module literals (cases checked against CPython's own reading). */
import { describe, expect, test } from "bun:test";
import { PyLiteralError, readPyAssignments } from "../../src/util/py-literal.ts";

// [source, what Python binds] — each expected value is what `runpy.run_path` gives for the source.
const CASES: [string, Record<string, unknown>][] = [
  ['A = {"en": ["x", \'y\',],}\n', { A: { en: ["x", "y"] } }],
  ["A = 'Hier is \\'n vraag'  # comment\nB = \"q\\\"d\\\\\"", { A: "Hier is 'n vraag", B: 'q"d\\' }],
  ['A = ("a" "b",\n  "c")', { A: ["ab", "c"] }],
  ["A = [1, -2, True, False, None]", { A: [1, -2, true, false, null] }],
  ['A = "\\u00e9\\x41\\n\\d"', { A: "éA\n\\d" }],
  ["# header\n\nA = {}\nB = []\n", { A: {}, B: [] }],
];

const BAD: [string, RegExp][] = [
  ["A = dict(x=1)", /line 1: not a literal/],
  ['A = """doc"""', /triple-quoted/],
  ['A = "open\n"', /unterminated string/],
  ["import os", /expected '=' after import/],
  ['A = {"a" 1}', /expected ':'/],
  ["A = {1: 2}", /only string dict keys/],
];

describe("readPyAssignments", () => {
  test.each(CASES)("%j", (src, want) => {
    expect(readPyAssignments(src)).toEqual(want);
  });
  test.each(BAD)("refuses %j", (src, msg) => {
    expect(() => readPyAssignments(src)).toThrow(PyLiteralError);
    expect(() => readPyAssignments(src)).toThrow(msg);
  });
});
