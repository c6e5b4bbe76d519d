/** The verifier-fixture contract (upstream tests/unit_tests/test_verifier_fixture.py, as data). */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exerciseVerifierFixture, loadVerifierFixture, type Observe } from "../../src/devtools/verifier-fixture.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A verifier whose answer depends on the request's `outcome` (as upstream's _Server does). */
function verifier(opts: { full?: number; zero?: number; sample?: () => number; malformed?: "error" | "wrong_error" | "no_error" } = {}): { observe: Observe; calls: { reseed: boolean }[] } {
  const calls: { reseed: boolean }[] = [];
  const observe: Observe = async (request, o) => {
    calls.push(o);
    const outcome = request.outcome;
    if (outcome === "malformed") {
      if ((opts.malformed ?? "error") === "no_error") return { ok: true, result: { reward: 0 } };
      return { ok: false, error: opts.malformed === "wrong_error" ? "ValueError: something else" : "HTTP 422: invalid request: outcome" };
    }
    const reward = outcome === "full" ? (opts.full ?? 1) : outcome === "zero" ? (opts.zero ?? 0) : (opts.sample ?? (() => 0.5))();
    return { ok: true, result: { reward } };
  };
  return { observe, calls };
}

function cases(opts: { determinism?: boolean; expectedFull?: number; expectedZero?: number; expectedSample?: number } = {}): string {
  const rows: Record<string, unknown>[] = [
    { name: "full", kind: "full_reward", request: { outcome: "full" }, expected_reward: opts.expectedFull ?? 1 },
    { name: "zero", kind: "zero_reward", request: { outcome: "zero" }, expected_reward: opts.expectedZero ?? 0 },
    { name: "malformed", kind: "malformed", request: { outcome: "malformed" }, expected_error: "invalid request" },
  ];
  if (opts.determinism !== false) rows.push({ name: "sample", kind: "determinism", request: { outcome: "sample" }, expected_reward: opts.expectedSample ?? 0.5 });
  return rows.map((r) => `${JSON.stringify(r)}\n`).join("");
}

const UNIT = { rewardRange: [0, 1] as [number, number], higherIsBetter: true };

describe("verifier fixture", () => {
  test("the four-case floor passes; the determinism case is observed twice on reseeded servers; the file is untouched", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "cases.jsonl");
    writeFileSync(path, cases());
    const v = verifier();
    const results = await exerciseVerifierFixture(path, v.observe, { ...UNIT, determinism: "seeded" });
    expect(results.map((r) => r.kind)).toEqual(["full_reward", "zero_reward", "malformed", "determinism"]);
    expect(results[3]!.observed_rewards).toEqual([0.5, 0.5]);
    expect(v.calls.filter((c) => c.reseed).length).toBe(2);
    expect(readFileSync(path, "utf8")).toBe(cases());
  });

  const bad: [string, string, string][] = [
    ["empty", "", "contains no cases"],
    ["not JSON", "not-json\n", "cases.jsonl:1: Invalid JSON"],
    ["missing cases", '{"name":"full","kind":"full_reward","request":{},"expected_reward":1}\n', "missing required cases: malformed, zero_reward"],
    ["malformed without expected_error", '\n{"name":"bad","kind":"malformed","request":{}}\n', "cases.jsonl:2: invalid verifier fixture case: expected_error: a malformed case requires expected_error"],
    ["reward case with an error", '{"name":"x","kind":"full_reward","request":{},"expected_reward":1,"expected_error":"e"}\n', "requires expected_reward and forbids expected_error"],
    ["unknown key", '{"name":"x","kind":"full_reward","request":{},"expected_reward":1,"extra":1}\n', "cases.jsonl:1: invalid verifier fixture case: extra: extra inputs are not permitted"],
    ["unknown kind", '{"name":"x","kind":"best","request":{},"expected_reward":1}\n', "kind: must be one of full_reward, zero_reward, malformed, determinism"],
    ["non-finite reward", '{"name":"x","kind":"full_reward","request":{},"expected_reward":"1"}\n', "expected_reward: must be a finite number"],
  ];
  for (const [what, content, message] of bad) {
    test(`rejects a fixture: ${what}`, async () => {
      await using dir = await tempDir();
      const path = join(dir.path, "cases.jsonl");
      writeFileSync(path, content);
      await expect(exerciseVerifierFixture(path, verifier().observe, { ...UNIT, determinism: "unknown" })).rejects.toThrow(message);
    });
  }

  test("seeded workloads require a determinism case; other workloads skip it", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "cases.jsonl");
    writeFileSync(path, cases({ determinism: false }));
    await expect(exerciseVerifierFixture(path, verifier().observe, { ...UNIT, determinism: "seeded" })).rejects.toThrow("missing required cases: determinism");
    writeFileSync(path, cases());
    const r = await exerciseVerifierFixture(path, verifier({ sample: () => Math.random() }).observe, { ...UNIT, determinism: "stochastic" });
    expect(r.map((x) => x.kind)).toEqual(["full_reward", "zero_reward", "malformed"]);
  });

  const behaviour: [string, Parameters<typeof verifier>[0], Partial<{ rewardRange: [number, number] }>, string][] = [
    ["a reward outside the declared range", { full: 1.5 }, {}, "returned reward 1.5 outside declared range [0.0, 1.0]"],
    ["a full case that misses the upper endpoint", { full: 0.75 }, {}, "does not pin the upper endpoint: expected 1.0, observed 0.75"],
    ["a verdict that changes on a fresh server", { sample: (() => { let n = 0; return () => (n++ % 2 === 0 ? 0.5 : 0.25); })() }, {}, "changed on a fresh server"],
    ["an unordered range", {}, { rewardRange: [1, 0] }, "lower < upper"],
    ["a malformed case the verifier accepts", { malformed: "no_error" }, {}, "did not raise an error"],
    ["a malformed case with another error", { malformed: "wrong_error" }, {}, "error did not contain 'invalid request'"],
  ];
  for (const [what, v, contract, message] of behaviour) {
    test(`fails on ${what}`, async () => {
      await using dir = await tempDir();
      const path = join(dir.path, "cases.jsonl");
      writeFileSync(path, cases());
      await expect(exerciseVerifierFixture(path, verifier(v).observe, { ...UNIT, ...contract, determinism: "seeded" })).rejects.toThrow(message);
    });
  }

  test("a non-numeric reward and a rejected reward case are failures naming the case and its line", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "cases.jsonl");
    writeFileSync(path, cases({ determinism: false }));
    const observe: Observe = async (req) => (req.outcome === "full" ? { ok: true, result: { reward: true } } : { ok: false, error: "HTTP 500: boom" });
    await expect(exerciseVerifierFixture(path, observe, { ...UNIT, determinism: "unknown" })).rejects.toThrow("Case 'full' (line 1) returned a non-finite numeric reward: true");
    const fails: Observe = async () => ({ ok: false, error: "HTTP 500: boom" });
    await expect(exerciseVerifierFixture(path, fails, { ...UNIT, determinism: "unknown" })).rejects.toThrow("Case 'full' (line 1) failed: HTTP 500: boom");
  });

  test("lower-is-better reverses the endpoints", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "cases.jsonl");
    writeFileSync(path, cases({ expectedFull: 0, expectedZero: 1 }));
    const r = await exerciseVerifierFixture(path, verifier({ full: 0, zero: 1 }).observe, { rewardRange: [0, 1], higherIsBetter: false, determinism: "seeded" });
    expect([r[0]!.observed_rewards, r[1]!.observed_rewards]).toEqual([[0], [1]]);
    await expect(exerciseVerifierFixture(path, verifier().observe, { rewardRange: [0, 1], higherIsBetter: false, determinism: "seeded" })).rejects.toThrow("does not pin the lower endpoint");
  });

  test("--update-expected is explicit and atomic: a mismatch fails without it, a failing check writes nothing, a pass records the observed rewards", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "cases.jsonl");
    const original = cases({ expectedSample: 0.25 });
    writeFileSync(path, original);
    await expect(exerciseVerifierFixture(path, verifier().observe, { ...UNIT, determinism: "seeded" })).rejects.toThrow("Case 'sample' (line 4) reward mismatch: expected 0.25, observed 0.5");
    expect(readFileSync(path, "utf8")).toBe(original);
    const flaky = verifier({ sample: (() => { let n = 0; return () => (n++ % 2 === 0 ? 0.5 : 0.75); })() });
    await expect(exerciseVerifierFixture(path, flaky.observe, { ...UNIT, determinism: "seeded", updateExpected: true })).rejects.toThrow("changed");
    expect(readFileSync(path, "utf8")).toBe(original);
    await exerciseVerifierFixture(path, verifier().observe, { ...UNIT, determinism: "seeded", updateExpected: true });
    const updated = loadVerifierFixture(path);
    expect(updated.find((c) => c.kind === "determinism")!.expected_reward).toBe(0.5);
    // Upstream's serialisation: sorted keys, json.dumps separators, floats as floats.
    expect(readFileSync(path, "utf8").split("\n")[3]).toBe('{"expected_reward": 0.5, "kind": "determinism", "name": "sample", "request": {"outcome": "sample"}}');
    expect(readFileSync(path, "utf8").split("\n")[0]).toBe('{"expected_reward": 1.0, "kind": "full_reward", "name": "full", "request": {"outcome": "full"}}');
  });
});
