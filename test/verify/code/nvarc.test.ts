/**
 * NVARC inductive mode on the CodeRunner: upstream's TestExtractPythonCode / TestExecutePython /
 * TestInductivePositive / TestInductiveNegative cases as data, plus gym's own (numpy results, lax ints,
 * restricted builtins, ragged grids). Needs host python3 (the CodeRunner's requirement, D27).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { extractTransformCode, runTransform } from "../../../src/verify/code/nvarc.ts";
import { readEnv } from "../../../src/env.ts";
import { CodeRunner } from "../../../src/verify/code/runner.ts";

const runner = new CodeRunner({ maxConcurrent: 2 }, readEnv().path);
afterAll(() => runner.close());
const rows: Record<string, any>[] = readFileSync(join(import.meta.dir, "..", "..", "..", "assets", "resources_servers", "nvarc", "data", "example.jsonl"), "utf8")
  .split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const inductive = rows.filter((r) => r.agent_mode === "inductive");

describe("extractTransformCode", () => {
  test.each([
    ["markdown python block", "```python\ndef transform(g):\n    return g\n```", "def transform(g):\n    return g"],
    ["bare function", "def transform(grid):\n    return [[0]]", "def transform(grid):\n    return [[0]]"],
    ["no code", "just text", null],
    ["no code block, prose only", "Here is my analysis but no code block", null],
    ["thinking stripped", "<think>hmm ```python\nx\n```</think>\n```python\ndef transform(g):\n    return g\n```", "def transform(g):\n    return g"],
    ["the last python block wins", "```python\na = 1\n```\ntext\n```python\nb = 2\n```", "b = 2"],
    ["a bare block when no python block", "```\ndef transform(g): return g\n```", "def transform(g): return g"],
  ])("%s", (_n, text, want) => {
    expect(extractTransformCode(text)).toBe(want);
  });
});

describe("runTransform", () => {
  test.each([
    ["correct transform", "def transform(grid):\n    return [[c + 1 for c in row] for row in grid]", [[0, 1], [2, 3]], [[1, 2], [3, 4]]],
    ["identity", "def transform(g):\n    return g", [[5, 6]], [[5, 6]]],
    ["numpy array result", "import numpy as np\ndef transform(g):\n    return np.array(g) * 2", [[1, 2]], [[2, 4]]],
    ["tuples and integral floats validate as ints (pydantic lax)", "def transform(g):\n    return ((1.0, True), (3, '4'))", [[0]], [[1, 1], [3, 4]]],
    ["print does not disturb the answer", "def transform(g):\n    print('debug'); return g", [[7]], [[7]]],
    ["syntax error", "def transform(g):\n    return g +", [[0]], null],
    ["no transform", "x = 42", [[0]], null],
    ["runtime error", "def transform(g):\n    return g[999]", [[0]], null],
    ["import os is blocked", "import os\ndef transform(g):\n    return g", [[0]], null],
    ["open is not a builtin", "def transform(g):\n    open('x', 'w'); return g", [[0]], null],
    ["None result", "def transform(g):\n    return None", [[0]], null],
    ["ragged grid", "def transform(g):\n    return [[1, 2], [3]]", [[0]], null],
    ["empty grid", "def transform(g):\n    return []", [[0]], null],
    ["non-integral float", "def transform(g):\n    return [[1.5]]", [[0]], null],
  ])("%s", async (_n, code, grid, want) => {
    expect((await runTransform(runner, code, grid as number[][], 10)).grid).toEqual(want as number[][] | null);
  }, 30_000);

  test("an infinite loop is stopped by the alarm and gives no grid", async () => {
    const r = await runTransform(runner, "def transform(g):\n    while True: pass", [[0]], 1);
    expect(r.grid).toBeNull();
    expect(r.error).toContain("TimeoutError");
  }, 30_000);

  test("module-level code that never ends is killed at timeout + 5 s", async () => {
    const r = await runTransform(runner, "while True: pass", [[0]], 0);
    expect(r.grid).toBeNull();
    expect(r.error).toContain("killed");
  }, 30_000);

  test.each(inductive.map((e) => [e.task_id, e] as const))("example %s: a hard-coded correct transform gives the expected grid; a wrong one does not", async (_id, e) => {
    const code = extractTransformCode("```python\ndef transform(input_grid):\n    return " + JSON.stringify(e.expected_output) + "\n```")!;
    expect((await runTransform(runner, code, e.test_input, 10)).grid).toEqual(e.expected_output);
    const wrong = (await runTransform(runner, "def transform(grid):\n    return [[0 for c in row] for row in grid]", e.test_input, 10)).grid;
    expect(wrong).not.toEqual(e.expected_output);
  }, 30_000);
});
