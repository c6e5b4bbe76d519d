import { describe, expect, test } from "bun:test";
import { PyRegexError, pyRegex, translatePyRegex } from "../../src/util/py-regex.ts";

// [pattern, flags, text, findall result as CPython 3.12 gives it]
const FINDALL: [string, object, string, unknown[]][] = [
  ["(?P<x>[A-D])\\Z", {}, "pick C", ["C"]],
  ["(?P<x>[A-D])\\Z", {}, "pick C\n", []],
  ["[A-D]$", {}, "pick C\n", ["C"]], // $ also matches before a final newline
  ["^[A-D]$", { multiline: true }, "A\nb\nC\r\nD", ["A", "D"]], // only \n ends a line
  ["a.c", {}, "a\rc a\nc", ["a\rc"]],
  ["a.c", { dotAll: true }, "a\nc", ["a\nc"]],
  ["(?s:a.c)|x", {}, "a\nc", ["a\nc"]],
  ["(?i:answer):\\s*([a-d])", {}, "ANSWER: b; Answer: D", ["b"]],
  ["(?i)answer\\s*:\\s*(.+)", {}, "ANSWER : c\nmore", ["c"]],
  ["\\d+", {}, "x ٣٤ 12", ["٣٤", "12"]], // Unicode digits
  ["\\d+", { ascii: true }, "x ٣٤ 12", ["12"]],
  ["\\w+", {}, "héllo wörld_1", ["héllo", "wörld_1"]],
  ["\\bB\\b", {}, "éB B", ["B"]], // é is a word character in Python
  ["\\s", {}, "a\u001cb\ufeffc", ["\u001c"]], // Python whitespace, not JS's
  ["a{,2}", {}, "aaa", ["aa", "a", ""]],
  ["x{}y", {}, "x{}y", ["x{}y"]],
  ["{foo}", {}, "a{foo}b", ["{foo}"]],
  ["\\:\\'\\\"", {}, ":'\"", [":'\""]],
  ["[]a]+", {}, "]a]x", ["]a]"]],
  ["[\\s\\S]", {}, "\u001c", ["\u001c"]],
  ["(a)(b)?", {}, "a", [["a", ""]]],
  ["(?P<q>[ab])(?P=q)", {}, "abba", ["b"]],
  ["الإجابة:\\s*([أ-د])", {}, "الإجابة: ب", ["ب"]],
  ["(?x) a \\s* b  # comment", {}, "a   b", ["a   b"]],
  ["a(?#note)b", {}, "ab", ["ab"]],
  ["Answer\\s*:\\s*(?!Answer)\\s*([A-Za-z])\\s*", {}, "Answer: Answer: C", ["A"]], // the lookahead fails only before "Answer" with no space: backtracking finds A
  ["\\\\boxed\\{\\s*([A-Za-z])\\s*\\}", { ignoreCase: true }, "\\boxed{ b } \\BOXED{C}", ["b", "C"]],
];

describe("Python regex → JavaScript", () => {
  test.each(FINDALL)("findall(%p, %p)", (pat, flags, text, want) => {
    expect(pyRegex(pat, flags).findall(text)).toEqual(want as never);
  });

  test("match / fullmatch / search anchor like Python", () => {
    const r = pyRegex("(?:\\s*[/|&,;]\\s*|\\s+(?:or|and)\\s+|\\s+)", { ignoreCase: true });
    expect(r.fullmatch(" OR ")).not.toBeNull();
    expect(r.fullmatch(" or x")).toBeNull();
    expect(pyRegex("b").match("ab")).toBeNull();
    expect(pyRegex("b").search("ab")?.index).toBe(1);
  });

  test.each([
    ["(?>a)", "atomic"],
    ["a*+", "possessive"],
    ["(a)?(?(1)b|c)", "conditional"],
    ["\\N{DIGIT ONE}", "\\N"],
    ["[\\W]", "inside a character class"],
  ])("%p is unsupported, clearly", (pat, msg) => {
    const e = (() => {
      try {
        translatePyRegex(pat);
      } catch (err) {
        return err as PyRegexError;
      }
    })();
    expect(e).toBeInstanceOf(PyRegexError);
    expect(e!.kind).toBe("unsupported");
    expect(e!.message).toContain(msg);
  });

  test.each([["(["], ["a)"], ["*a"], ["a{3,2}"], ["\\q"], ["x(?i)y"]])("%p is a Python syntax error", (pat) => {
    expect(() => translatePyRegex(pat)).toThrow(PyRegexError);
    try {
      translatePyRegex(pat);
    } catch (e) {
      expect((e as PyRegexError).kind).toBe("syntax");
    }
  });
});
