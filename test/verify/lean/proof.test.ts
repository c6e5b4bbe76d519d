/** verify/lean/proof.ts: upstream math_formal_lean's tests/test_proof_utils.py and the error-parsing / prompt tests of tests/test_app.py, as data. */
import { expect, test } from "bun:test";
import {
  buildLean4Proof, cleanFormalGeneration, correctionPrompt, determineProofStatus, errorFeedback, extractCodeBlock, extractProofOnly,
  formatLeanErrors, parseLeanErrors, REFINEMENT_PROMPT_TEMPLATE, splitLines,
} from "../../../src/verify/lean/proof.ts";

const L = ["lean4", "lean", ""];
test.each([
  ["Here's the proof:\n```lean4\nsimp [h₁, h₂, h₃]\nring\n```\nDone!", L, "last", "simp [h₁, h₂, h₃]\nring"],
  ["```lean\nomega\n```", L, "last", "omega"],
  ["```\nsimp\n```", L, "last", "simp"],
  ["Just some text without code blocks", L, "last", ""],
  ["```lean4\nfirst_proof\n```\nActually, let me try again:\n```lean4\nsecond_proof\n```", ["lean4"], "last", "second_proof"],
  ["```lean4\nfirst_proof\n```\nActually:\n```lean4\nsecond_proof\n```", ["lean4"], "first", "first_proof"],
  // A language earlier in the list wins over a later block of another language.
  ["```lean\na\n```\n```lean4\nb\n```", L, "last", "b"],
] as [string, string[], string, string][])("extractCodeBlock %#", (text, langs, mode, want) => expect(extractCodeBlock(text, langs, mode)).toBe(want));

test.each([
  ["Let me solve this step by step.\n```lean4\nsimp [h₁, h₂]\nring\n```", null, "simp [h₁, h₂]\nring"],
  ["simp [h₁, h₂]\nring", null, "simp [h₁, h₂]\nring"],
  ["Thinking...\nFINAL ANSWER:\n```lean4\nomega\n```", "FINAL ANSWER:", "omega"],
  // app.py also knows lean3 fences; an unclosed fence is stripped from the edges.
  ["```lean3\nsimp\n```", null, "simp"],
  ["```lean4\nsimp\nring", null, "simp\nring"],
  ["  \u3000", null, ""],
] as [string, string | null, string][])("cleanFormalGeneration %#", (g, key, want) => expect(cleanFormalGeneration(g, key)).toBe(want));

test.each([
  ["theorem test (n : Nat) : n + 0 = n := by\n  simp\n  ring", "  simp\n  ring"],
  ["theorem test : True := by trivial", "trivial"],
  ["example : 1 + 1 = 2 := by\n  norm_num", "  norm_num"],
  ["simp\nring", "simp\nring"],
  ["", ""],
  ["theorem t (a : ℝ)\n    (h : a = 1) :\n    a = 1 := by\n  exact h", "  exact h"],
  ["theorem t : True :=\n  by\n  trivial", "  trivial"],
  ["theorem t : True := trivial", "trivial"],
  // `theoremα` is one word for Python's Unicode \b: no header found.
  ["theoremα : True := by trivial", "theoremα : True := by trivial"],
  ["theorem t : True\n  trivial", "theorem t : True\n  trivial"],
] as [string, string][])("extractProofOnly %#", (code, want) => expect(extractProofOnly(code)).toBe(want));

const task = { header: "import Mathlib\n\n", formal_statement: "theorem test : True := by\n" };
test("buildLean4Proof restates the statement and strips the model's header", () => {
  const g = "```lean4\ntheorem test : True := by\n  trivial\n```";
  expect(buildLean4Proof(g, task)).toBe("import Mathlib\n\ntheorem test : True := by\n  trivial");
  expect(buildLean4Proof(g, task, { restateFormalStatement: false })).toBe("import Mathlib\n\n  trivial");
  expect(buildLean4Proof(g, task, { stripTheoremFromProof: false })).toBe("import Mathlib\n\ntheorem test : True := by\ntheorem test : True := by\n  trivial");
  expect(buildLean4Proof("```lean4\nA\n```\n```lean4\nB\n```", task, { extractCodeMode: "first" })).toBe("import Mathlib\n\ntheorem test : True := by\nA");
});

test.each([
  [{ process_status: "completed", stdout: "", stderr: "" }, "completed"],
  [{ process_status: "timeout", stdout: "", stderr: "" }, "timeout"],
  [{ process_status: "error", stdout: "", stderr: "compilation failed" }, "error"],
  [{ process_status: "completed", stdout: "warning: declaration uses 'sorry'", stderr: "" }, "has_sorry"],
  [{ process_status: "completed", stdout: "", stderr: "sorry found in proof" }, "has_sorry"],
  [{ process_status: "completed", stdout: "SORRY", stderr: "" }, "has_sorry"],
  [{ process_status: "completed", stdout: "sorryful", stderr: "" }, "completed"],
  [{ process_status: "completed", stdout: "ésorry", stderr: "" }, "completed"],
  [{ process_status: "failed", stdout: "x", stderr: "" }, "failed"],
  [{}, "unknown"],
] as [Record<string, string>, string][])("determineProofStatus %#", (out, want) => expect(determineProofStatus(out)).toBe(want));

test("parseLeanErrors: one, several, none; the message after `error:`", () => {
  const one = parseLeanErrors("/lean4/my_project/Main.lean:10:5: error: unknown identifier 'foo'");
  expect(one).toEqual([{ pos: { line: 10, column: 5 }, endPos: null, data: "unknown identifier 'foo'" }]);
  const two = parseLeanErrors("/lean4/my_project/Main.lean:10:5: error: unknown identifier 'foo'\n/lean4/my_project/Main.lean:15:3: error: type mismatch\n  more");
  expect(two.map((e) => [e.pos.line, e.data])).toEqual([[10, "unknown identifier 'foo'"], [15, "type mismatch\n  more"]]);
  expect(parseLeanErrors("All good, no errors here")).toEqual([]);
  // Warnings in between belong to the preceding error's text, as upstream's regex reads them.
  expect(parseLeanErrors("/lean4/my_project/a.lean:1:0: warning: w\n/lean4/my_project/a.lean:2:1: error: e")).toHaveLength(1);
});

test("formatLeanErrors: context lines, <error> markers, out-of-range lines skipped, the omitted count", () => {
  const code = "import Mathlib\n\ntheorem test : True := by\n  wrong_tactic\n  sorry";
  const s = formatLeanErrors(code, [{ pos: { line: 4, column: 2 }, endPos: null, data: "unknown tactic 'wrong_tactic'" }]);
  expect(s).toBe(
    "\nError 1:\n\nCorresponding Code:\n```lean4\nimport Mathlib\n\ntheorem test : True := by\n  <error>wrong_tactic</error>\n  sorry\n\n```\n\nError Message: unknown tactic 'wrong_tactic'\n",
  );
  const multi = formatLeanErrors("a\nbcd\ne\nfgh", [{ pos: { line: 2, column: 1 }, endPos: { line: 4, column: 2 }, data: "m" }]);
  expect(multi).toContain("a\nb<error>cd\ne\nfg</error>h\n");
  expect(formatLeanErrors("x", [{ pos: { line: 9, column: 0 }, endPos: null, data: "far" }])).not.toContain("far");
  const many = Array.from({ length: 10 }, (_, i) => ({ pos: { line: 1, column: 0 }, endPos: null, data: `e${i}` }));
  expect(formatLeanErrors("x", many)).toContain("[Omitted 2 more errors]");
  // Columns count code points (Lean's), not UTF-16 units.
  expect(formatLeanErrors("𝔸 := h", [{ pos: { line: 1, column: 2 }, endPos: null, data: "m" }])).toContain("𝔸 <error>:= h</error>");
});

test("errorFeedback: timeout note, structured stderr, raw fallback cut at 2000 code points, nothing captured", () => {
  expect(errorFeedback({ process_status: "timeout", stdout: "", stderr: "" }, "c").toLowerCase()).toContain("timed out");
  expect(errorFeedback({ process_status: "error", stdout: "some stdout", stderr: "some stderr without structured errors" }, "c")).toBe("Compilation output:\nsome stdout\nsome stderr without structured errors");
  expect(errorFeedback({ process_status: "error", stdout: "", stderr: "/lean4/my_project/f.lean:1:0: error: bad" }, "lemma")).toContain("Error Message: bad");
  const long = errorFeedback({ process_status: "error", stdout: "é".repeat(2500), stderr: "" }, "c");
  expect(long).toBe(`Compilation output:\n${"é".repeat(2000)}\n... [Truncated]`);
  expect(errorFeedback({ process_status: "error", stdout: " ", stderr: "" }, "c")).toBe("The proof failed but no specific error message was captured.");
});

test("correctionPrompt: upstream's template by default, a custom str.format template otherwise", () => {
  const p = correctionPrompt("wrong_tactic", "unknown tactic 'wrong_tactic'");
  expect(p.toLowerCase()).toContain("proof attempt");
  expect(p).toContain("wrong_tactic");
  expect(p).toContain("unknown tactic");
  expect(p.toLowerCase()).toContain("fix this proof");
  expect(correctionPrompt("broken_code", "syntax error", "Fix this: {proof_attempt}\nError: {error_message}")).toBe("Fix this: broken_code\nError: syntax error");
  expect(REFINEMENT_PROMPT_TEMPLATE).toContain("{proof_attempt}");
  expect(REFINEMENT_PROMPT_TEMPLATE).toContain("{error_message}");
  // Braces inside the attempt are data, not fields.
  expect(correctionPrompt("{x}", "e", "{proof_attempt}|{error_message}")).toBe("{x}|e");
});

test("splitLines follows str.splitlines", () => {
  expect(splitLines("a\r\nb\rc\u2028d\n")).toEqual(["a", "b", "c", "d"]);
  expect(splitLines("")).toEqual([]);
  expect(splitLines("\n")).toEqual([""]);
});
