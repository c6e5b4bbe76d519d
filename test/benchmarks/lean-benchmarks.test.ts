/**
 * minif2f's preparation (pure: source bytes → lines) on a fixture in Goedel-Prover-V2's minif2f.jsonl
 * format. The expected rows were computed once with upstream's benchmarks/minif2f/prepare.py
 * (`_process_entry`), including its edge cases (a `theorem ` inside the doc comment, no theorem at all).
 */
import { expect, test } from "bun:test";
import "../../src/benchmarks/index.ts";
import { benchmark } from "../../src/benchmarks/minif2f.ts";
import { SourceFormatError } from "../../src/dataset/formats/_errors.ts";

const tricky = [
  { name: "mathd_algebra_478", split: "test", informal_prefix: "/-- The volume … -/\n", formal_statement: "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n/-- The volume of a cone. Show that it is 65.-/\ntheorem mathd_algebra_478 (b h v : ℝ) (h₀ : 0 < b) : v = 65 := by sorry", goal: "g" },
  { name: "t2", category: "test", lean4_code: "theorem t2 : 1 = 1 := by\n  sorry", formal_statement: "" },
  { name: "t3", split: "valid", formal_statement: "import Mathlib\ntheorem t3 : True := by\n  trivial := by sorry" },
  { name: "t4", split: "test", formal_statement: "no theorem here sorry" },
  { split: "test", formal_statement: "import X\n/-- doc theorem inside -/\ntheorem t5 : x := by\n  sorry\n" },
];
// Upstream's output for the four test rows above (json.dumps, ensure_ascii=False).
const want = [
  '{"name": "mathd_algebra_478", "split": "test", "informal_prefix": "/-- The volume … -/\\n", "formal_statement": "theorem mathd_algebra_478 (b h v : ℝ) (h₀ : 0 < b) : v = 65 := by\\n", "goal": "g", "header": "import Mathlib\\nimport Aesop\\n\\nset_option maxHeartbeats 400000\\n\\nopen BigOperators Real Nat Topology Rat\\n\\n"}',
  '{"name": "t2", "split": "test", "informal_prefix": "", "formal_statement": "theorem t2 : 1 = 1 := by\\n", "goal": "", "header": ""}',
  '{"name": "t4", "split": "test", "informal_prefix": "", "formal_statement": "theorem here ", "goal": "", "header": "no "}',
  '{"name": "", "split": "test", "informal_prefix": "", "formal_statement": "theorem inside -/\\ntheorem t5 : x := by\\n", "goal": "", "header": "import X\\n"}',
];
const filler = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, split: "test", formal_statement: `import Mathlib\n\ntheorem f${i} : True := by\n  sorry` }));
const file = (rows: object[]) => [[{ name: "minif2f-kimina.jsonl", bytes: new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join("\n") + "\n") }]];

test("minif2f: upstream's rows for the test split, valid rows dropped", async () => {
  const lines = (await benchmark.prepare(file([...tricky, ...filler(240)]))) as string[];
  expect(lines).toHaveLength(244);
  expect(lines.slice(0, 4)).toEqual(want);
  expect(JSON.parse(lines[4]!)).toEqual({ name: "f0", split: "test", informal_prefix: "", formal_statement: "theorem f0 : True := by\n", goal: "", header: "import Mathlib\n\n" });
  expect(benchmark.sources[0]).toMatchObject({ kind: "url", file: "minif2f-kimina.jsonl" });
  expect(benchmark.server).toBe("math_formal_lean");
});

test("minif2f: a source with another number of test rows, or a non-string statement, stops with the file named", async () => {
  expect(() => benchmark.prepare(file(filler(243)))).toThrow(SourceFormatError);
  expect(() => benchmark.prepare(file(filler(243)))).toThrow("expected 244 test theorems, got 243");
  expect(() => benchmark.prepare(file([{ split: "test", formal_statement: 7 }]))).toThrow("minif2f-kimina.jsonl:1");
});

test("proofnet: the test rows unchanged, in order, as Python's json.dumps writes them (ASCII escapes)", async () => {
  const { benchmark: proofnet } = await import("../../src/benchmarks/proofnet.ts");
  const row = (i: number, split: string) => ({ name: `exercise_${i}`, split, informal_prefix: "/-- Prove ∀ x -/\n", formal_statement: `theorem exercise_${i} : True :=`, goal: "⊢ True", header: "import Mathlib\n" });
  const rows = [row(0, "valid"), ...Array.from({ length: 186 }, (_, i) => row(i + 1, "test")), row(999, "valid")];
  const src = [[{ name: "proofnet.jsonl", bytes: new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join("\n")) }]];
  const lines = (await proofnet.prepare(src)) as string[];
  expect(lines).toHaveLength(186);
  // Upstream's json.dumps(row) for row 1 (checked with Python).
  expect(lines[0]).toBe('{"name": "exercise_1", "split": "test", "informal_prefix": "/-- Prove \\u2200 x -/\\n", "formal_statement": "theorem exercise_1 : True :=", "goal": "\\u22a2 True", "header": "import Mathlib\\n"}');
  expect(() => proofnet.prepare([[{ name: "proofnet.jsonl", bytes: new TextEncoder().encode(JSON.stringify(row(1, "test"))) }]])).toThrow("expected 186 test rows, got 1");
});

test("mobench: prelude kept, cut after the first `:= by` (Unicode \\b), trailing sorry dropped, upstream's header (checked with upstream's prepare.py)", async () => {
  const { benchmark: mobench } = await import("../../src/benchmarks/mobench.ts");
  const rows = [
    { name: "a", full_formal_statement: "import Mathlib\nopen Real\n\ntheorem a (x : ℝ) : x = x := by\n  sorry", informal_prefix: "/-- ∀ -/" },
    { name: "b", formal_statement: "theorem b : True := by sorry" },
    { name: "c", formal_statement: "  theorem c : True :=\n  by\n  trivial" },
    { name: "d", formal_statement: "lemma d : True := trivial" },
    { name: "e", formal_statement: "theorem e : P := byα := by sorry", split: "x" },
    { name: "f", full_formal_statement: "", formal_statement: "def x := 1\n\n\n  theorem f : x = 1 := by\n  rfl" },
  ];
  const H = '"goal": "", "header": "import Mathlib\\nimport Aesop\\n\\nset_option maxHeartbeats 0\\n\\nopen BigOperators Real Nat Topology Rat\\n\\n"}';
  const want = [
    `{"name": "a", "split": "test", "informal_prefix": "/-- \\u2200 -/", "formal_statement": "import Mathlib\\nopen Real\\n\\ntheorem a (x : \\u211d) : x = x := by\\n", ${H}`,
    `{"name": "b", "split": "test", "informal_prefix": "", "formal_statement": "theorem b : True := by\\n", ${H}`,
    `{"name": "c", "split": "test", "informal_prefix": "", "formal_statement": "theorem c : True :=\\n  by\\n", ${H}`,
    `{"name": "d", "split": "test", "informal_prefix": "", "formal_statement": "lemma d : True := trivial := by\\n", ${H}`,
    `{"name": "e", "split": "x", "informal_prefix": "", "formal_statement": "theorem e : P := by\\u03b1 := by\\n", ${H}`,
    `{"name": "f", "split": "test", "informal_prefix": "", "formal_statement": "def x := 1\\n\\ntheorem f : x = 1 := by\\n", ${H}`,
  ];
  const fill = Array.from({ length: 354 }, (_, i) => ({ name: `z${i}`, formal_statement: `theorem z${i} : True := by sorry` }));
  const src = (rs: object[]) => [[{ name: "MOBench.jsonl", bytes: new TextEncoder().encode(rs.map((r) => JSON.stringify(r)).join("\n")) }]];
  const lines = (await mobench.prepare(src([...rows, ...fill]))) as string[];
  expect(lines).toHaveLength(360);
  expect(lines.slice(0, 6)).toEqual(want);
  expect(() => mobench.prepare(src(rows))).toThrow("expected 360 rows, got 6");
});
