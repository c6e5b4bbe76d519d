/** spartqa as tables: every helper, verify and compute_metrics call of upstream's tests, outcomes computed once by upstream's app.py (CPython). */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gradeSpartqa } from "../../src/components/resources/spartqa.ts";
import { candidateLabels, extractAnswer, labelKey, matchLabel, normalize, spartqaKeyMetrics, spartqaMetrics } from "../../src/verify/rules/spartqa.ts";

type Case = { fn: string; args?: any[]; body?: any; out: any };
const CASES = (JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "library", "spartqa.json"), "utf8")) as { cases: Case[] }).cases;

const RUN: Record<string, (c: Case) => unknown> = {
  _normalize: (c) => normalize(c.args![0]),
  _extract_answer: (c) => extractAnswer(c.args![0]),
  _label_key: (c) => labelKey(c.args![0]),
  candidate_labels: (c) => candidateLabels(c.args![0]),
  match_label: (c) => matchLabel(c.args![0], c.args![1]),
  verify: (c) => {
    const { responses_create_params: _r, response: _s, ...got } = gradeSpartqa({ responses_create_params: { input: [] }, ...c.body });
    return got;
  },
  compute_metrics: (c) => spartqaMetrics(c.args![0]),
  get_key_metrics: (c) => spartqaKeyMetrics(c.args![0]),
};

describe("spartqa (outcomes from upstream's app.py)", () => {
  for (const fn of Object.keys(RUN)) {
    test(fn, () => {
      const cases = CASES.filter((c) => c.fn === fn);
      expect(cases.length).toBeGreaterThan(0);
      for (const c of cases) expect([c.args ?? c.body, RUN[fn]!(c)]).toEqual([c.args ?? c.body, c.out]);
      process.stderr.write(`spartqa ${fn}: ${cases.length}/${cases.length} as upstream\n`);
    });
  }
});
