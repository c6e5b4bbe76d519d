import { describe, expect, test } from "bun:test";
import { assistantText, FormatSpecError, verifyFormat } from "../../src/verify/format-verification.ts";

// Cases after upstream resources_servers/format_verification/tests/test_app.py.
const numbered = "1. First\n2. Second\n3. Third";

describe("format_verification", () => {
  test.each([
    [numbered, { type: "regex", verify_regex: ["^\\d+\\."], verify_min_matches: 2 }, 1, { matching_lines: 3, passed: true }],
    ["1. one\n2. two\nthree", { type: "regex", verify_regex: ["^\\d+\\."], verify_min_matches: 5 }, 0, { matching_lines: 2, passed: false }],
    [numbered, { type: "regex", verify_regex: [], verify_min_matches: 1 }, 0, { matching_lines: 0 }],
    ["1. First line", { type: "regex", verify_regex: ["^\\d", "First"], verify_min_matches: 1 }, 1, { matching_lines: 1 }],
    ["", { type: "regex", verify_regex: ["hello"], verify_min_matches: 1 }, 0, { matching_lines: 0 }],
    ["abc", { type: "regex", verify_regex: ["xyz"], verify_min_matches: 0 }, 1, { passed: true }],
    [numbered, { type: "inline_prose", verify_regex: ["^\\d+\\."], verify_min_matches: 1 }, 1, {}],
    [numbered, { type: "regex", verify_regex: ["^\\d+\\."] }, 1, { min_matches: 1 }],
    ["Fact [source:1] and [source:2].", { type: "string_match", expected_markers: ["[source:1]", "[source:2]"], patterns: ["\\[source:\\d+\\]"] }, 1, { missing: [], spurious: [], passed: true }],
    ["Fact [source:1].", { type: "string_match", expected_markers: ["[source:1]", "[source:2]"], patterns: [] }, 0, { missing: ["[source:2]"], passed: false }],
    ["Fact [source:1] and [source:2].", { type: "string_match", expected_markers: ["[source:1]"], patterns: ["\\[source:\\d+\\]"] }, 0, { spurious: ["[source:2]"], passed: false }],
    ["Fact [source:3].", { type: "string_match", expected_markers: ["[source:1]"], patterns: ["\\[source:\\d+\\]"] }, 0, { missing: ["[source:1]"], spurious: ["[source:3]"] }],
    // Python `\d` is Unicode: an Arabic-Indic digit counts as a numbered line.
    ["١. first", { type: "regex", verify_regex: ["^\\d+\\."], verify_min_matches: 1 }, 1, {}],
  ] as const)("%j", (text, verifier, reward, details) => {
    const v = verifyFormat(text, verifier as Record<string, unknown>);
    expect(v.reward).toBe(reward);
    expect(v.details).toMatchObject(details);
  });

  test("an unknown verifier type or a broken pattern is an error (upstream: 500)", () => {
    expect(() => verifyFormat("x", { type: "json" })).toThrow(FormatSpecError);
    expect(() => verifyFormat("x", { type: "regex", verify_regex: ["("] })).toThrow("does not compile");
  });

  test("only output_text parts of message items count", () => {
    expect(assistantText({ output: [{ type: "reasoning", content: [{ type: "output_text", text: "no" }] }, { type: "message", content: [{ type: "refusal", refusal: "r" }, { type: "output_text", text: "a" }] }, { type: "message", content: [{ type: "output_text", text: "b" }] }] })).toBe("ab");
  });
});
