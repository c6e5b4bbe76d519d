/** ragtruth as tables: every helper, verify and compute_metrics call of upstream's tests, outcomes computed once by upstream's app.py (CPython); plus bad input. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gradeRagtruth } from "../../src/components/resources/ragtruth.ts";
import { hasHallucination, parseResponse, ragtruthKeyMetrics, ragtruthMetrics, stripJsonFence, stripThink } from "../../src/verify/rules/ragtruth.ts";

type Case = { fn: string; args?: any[]; kwargs?: any; body?: any; config?: any; out: any };
const CASES = (JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "library", "ragtruth.json"), "utf8")) as { cases: Case[] }).cases;

const RUN: Record<string, (c: Case) => unknown> = {
  _strip_think: (c) => stripThink(c.args![0], c.kwargs?.tag ?? c.args![1]),
  _strip_json_fence: (c) => stripJsonFence(c.args![0]),
  _parse_response: (c) => parseResponse(c.args![0], c.kwargs?.think_tag ?? c.args![1]),
  _has_hallucination: (c) => hasHallucination(c.args![0]),
  verify: (c) => {
    const { responses_create_params: _r, response: _s, ...got } = gradeRagtruth({ responses_create_params: { input: [] }, ...c.body }, c.config?.think_tag);
    return got;
  },
  compute_metrics: (c) => ragtruthMetrics(c.args![0]),
  get_key_metrics: (c) => ragtruthKeyMetrics(c.args![0]),
};

describe("ragtruth (outcomes from upstream's app.py)", () => {
  for (const fn of Object.keys(RUN)) {
    test(fn, () => {
      const cases = CASES.filter((c) => c.fn === fn);
      expect(cases.length).toBeGreaterThan(0);
      for (const c of cases) expect([c.args ?? c.body, RUN[fn]!(c)]).toEqual([c.args ?? c.body, c.out]);
      process.stderr.write(`ragtruth ${fn}: ${cases.length}/${cases.length} as upstream\n`);
    });
  }
  test("bad input: empty or non-text output is a parse failure, never a crash", () => {
    const body = (output: unknown[]) => ({ responses_create_params: { input: [] }, response: { output }, is_halu: true });
    expect(gradeRagtruth(body([]))).toMatchObject({ reward: 0, parse_fail: 1, pred_halu: 0, is_halu: 1 });
    expect(gradeRagtruth(body([{ type: "function_call", name: "x", arguments: "{}" }]))).toMatchObject({ parse_fail: 1 });
    expect(gradeRagtruth({ ...body([{ type: "message", content: [{ type: "output_text", text: '{"hallucination list": ["a"]}' }] }]), is_halu: "yes" })).toMatchObject({ reward: 1, pred_halu: 1, extracted: '["a"]' });
  });
});
