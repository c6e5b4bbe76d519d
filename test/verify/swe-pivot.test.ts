/**
 * swe_pivot's layers as tables. Every expected value in fixtures/swe/swe-pivot-cases.json was computed
 * by upstream's own app.py functions (gen-swe-pivot-cases.py next to it): the cases of upstream's
 * tests/test_verifier.py with their exact outputs, plus edge cases (non-dict arguments, Unicode
 * paths, typed floats, the three places an expected call can live, Python exceptions).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PyFloat } from "../../src/util/py-json-typed.ts";
import {
  argumentSimilarity, commandVerb, diffSizePenalty, extractCommand, extractEditContent, extractFilePath, gradeSwePivot, parseArguments,
  parseViewRange, pathsInCommand, pathSuffix, PyRuntimeError, SWE_PIVOT_DEFAULTS, targetMatch, toolCategory, toolNameMatch,
} from "../../src/verify/rules/swe-pivot.ts";

type Any = any;
const C: Record<string, Any[][]> = JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "swe", "swe-pivot-cases.json"), "utf8"));
// Python's 1.0 arrives here as 1: compare typed values by their numbers.
const plain = (v: unknown): unknown => (v instanceof PyFloat ? v.value : Array.isArray(v) ? v.map(plain) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v);
const run = (f: () => unknown) => {
  try {
    return { ok: f() };
  } catch (e) {
    if (e instanceof PyRuntimeError) return { raises: e.message.split(":")[0] };
    throw e;
  }
};

describe("swe_pivot (outputs of upstream's app.py)", () => {
  test.each(C.categories!)("category(%p) = %p", (name, want) => expect(toolCategory(name)).toBe(want));
  test.each(C.parse!)("parse_arguments(%p) = %p", (raw, want) => expect(plain(parseArguments(raw))).toEqual(want));
  test.each(C.file_path!)("file path of %p = %p", (args, want) => expect(extractFilePath(args)).toBe(want));
  test.each(C.command!)("command of %p = %p", (args, want) => expect(run(() => extractCommand(args))).toEqual(want));
  test.each(C.verb!)("verb of %p = %p", (cmd, want) => expect(commandVerb(cmd)).toBe(want));
  test.each(C.edit_content!)("edit content of %p = %p", (args, want) => expect(extractEditContent(args)).toBe(want));
  test.each(C.paths!)("paths in %p = %p", (cmd, want) => expect(pathsInCommand(cmd)).toEqual(want));
  test.each(C.suffix!)("suffix(%p, %p) = %p", (p, n, want) => expect(pathSuffix(p, n)).toBe(want));
  test.each(C.view_range!)("view_range %p = %p", (raw, want) => expect(parseViewRange(raw)).toEqual(want));
  test.each(C.name_match!)("name match %p %p / %p %p = %p", (a, b, c, d, want) => expect(toolNameMatch(a, b, c, d)).toBe(want));
  test.each(C.target!)("target %s %p vs %s %p = %p", (rc, ra, ec, ea, want) => expect(run(() => targetMatch(rc, ra, ec, ea))).toEqual(want));
  test.each(C.similarity!)("similarity %s %p vs %s %p = %p", (rc, ra, ec, ea, want) => expect(argumentSimilarity(rc, ra, ec, ea)).toBe(want));
  test.each(C.penalty!)("penalty %s %p alpha %p = %p", (c, a, alpha, want) => expect(diffSizePenalty(c, a, alpha)).toBe(want));
  test.each(C.verify!.map((c, i) => [i, ...c]))("verify #%d (config %p)", (_i, cfg, fields, output, want) => {
    const { uuid: _u, metadata: _m, ...rest } = want;
    expect(gradeSwePivot({ output }, fields, { ...SWE_PIVOT_DEFAULTS, ...cfg })).toEqual(rest);
  });

  test("similarity is capped at 2000 code points: 100k-character edits score fast", () => {
    const t0 = performance.now();
    const sim = argumentSimilarity("edit", { old_str: "x".repeat(50_000), new_str: "y".repeat(50_000) }, "edit", { old_str: "x".repeat(50_000), new_str: "z".repeat(50_000) });
    expect(sim).toBe(0);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
  test("every upstream tool-name list maps to its category in CamelCase too", () => {
    for (const [name, cat] of C.categories!) if (cat !== "unknown" && name.includes("_")) expect(toolCategory(name.split("_").map((w: string) => w[0]!.toUpperCase() + w.slice(1)).join(""))).toBe(cat);
  });
});
