/**
 * iheval's cross-row metrics: upstream's TestReferenceConcatenation / TestAggregation /
 * TestCategoryAggregation cases as data, and a mixed table whose every metric was computed once by
 * upstream's own compute_metrics / get_key_metrics under CPython (test/fixtures/iheval/metrics.json).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gradeIheval } from "../../../src/components/resources/iheval.ts";
import { gwReferenceMetrics, ihevalKeyMetrics, ihevalMetrics, referenceTaskAverage, ruleFollowingSettingAvg, settingCategory } from "../../../src/verify/iheval/metrics.ts";
import { translationRouge, verbF1 } from "../../../src/verify/iheval/score.ts";

type Row = Record<string, unknown>;
const FIX = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "fixtures", "iheval", "metrics.json"), "utf8")) as {
  rows: Row[];
  hierarchy: { metrics: Record<string, number>; key: Record<string, number> };
  hierarchy_sysprompt: { metrics: Record<string, number>; key: Record<string, number> };
};
const one = (rows: Row[]) => rows.map((r) => [r]);
const ref = (row_id: unknown, gold: string, pred: string, extra: Row = {}): Row => ({ row_id, task: "verb-extract", setting: "reference/default", ref_gold: gold, ref_pred: pred, ...extra });

describe("iheval compute_metrics (values from upstream's functions)", () => {
  for (const mode of ["hierarchy", "hierarchy_sysprompt"] as const) {
    test(`mixed table, accuracy_mode ${mode}: every metric and key metric`, () => {
      const got = ihevalMetrics(one(FIX.rows), mode);
      expect(Object.keys(got).sort()).toEqual(Object.keys(FIX[mode].metrics).sort());
      for (const [k, v] of Object.entries(FIX[mode].metrics)) expect([k, got[k]]).toEqual([k, v]);
      expect(ihevalKeyMetrics(got)).toEqual(FIX[mode].key);
    });
  }
});

describe("iheval compute_metrics (upstream test cases)", () => {
  const rows = [ref("strong_user_instruction", "translate, output", "translate, output"), ref("weak_user_instruction", "is, are", "is, are"), ref(1, "added, watched", "added, watched"), ref(2, "run, jump", "jump")];

  test("reference task average: six components and their mean; no anchor → none", () => {
    const avg = referenceTaskAverage(rows, verbF1, ", ")!;
    expect(avg.n_data).toBe(2);
    expect(avg.average).toBeCloseTo((avg.ss! + avg.sl! + avg.ws! + avg.wl! + avg.ds! + avg.dl!) / 6, 12);
    expect(referenceTaskAverage(rows.filter((r) => r.row_id !== "weak_user_instruction"), verbF1, ", ")).toBeUndefined();
    expect(translationRouge("hola mundo", "hola mundo")).toBe(1);
    const m = ihevalMetrics(one(rows));
    expect(m["reference/verb-extract/n_data"]).toBe(2);
    expect(m["reference/verb-extract/average"]).toBe(avg.average!);
  });

  test("get-webpage mixed reference: per-subtask averages and the weighted mean", () => {
    const gw = (row_id: string, sub: string, gold: string, pred: string, reward: number): Row => ({ row_id, task: "get-webpage", ref_subtask: sub, ref_gold: gold, ref_pred: pred, reward });
    const out = gwReferenceMetrics([
      gw("verb_extraction_strong_tool_instruction", "verb_extract", "a, b", "a, b", 1),
      gw("verb_extraction_weak_tool_instruction", "verb_extract", "c", "c", 1),
      gw("verb_extraction_1", "verb_extract", "x, y", "x, y", 1),
      gw("translation_strong_tool_instruction", "translation", "hola", "hola", 1),
      gw("translation_weak_tool_instruction", "translation", "adios", "adios", 1),
      gw("translation_1", "translation", "buenos dias", "buenos dias", 1),
      gw("language_1", "lang_detect", "English", "{}", 0),
    ]);
    expect(out["reference/get-webpage/verb_extract/average"]).toBeDefined();
    expect(out["reference/get-webpage/translation/average"]).toBeCloseTo(1, 12);
    expect(out["reference/get-webpage/lang_detect/average"]).toBe(0);
    expect(out["reference/get-webpage/average"]).toBeDefined();
  });

  test("get-webpage reference end to end through verify", () => {
    const rowsIn: [string, Row, string][] = [
      ["verb_extraction_strong_tool_instruction", { task: "verb_extract", content: "a, b" }, "a, b"],
      ["verb_extraction_weak_tool_instruction", { task: "verb_extract", content: "c" }, "c"],
      ["verb_extraction_1", { task: "verb_extract", content: "x, y" }, "Verbs: x, y"],
      ["language_1", { task: "lang_detect", content: "English" }, '{"language": "English"}'],
    ];
    const verified = rowsIn.map(([id, answer, text]) =>
      gradeIheval({ responses_create_params: { input: [] }, response: { output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }] }, verifier_metadata: { id, task: "get-webpage", domain: "tool-use", setting: "reference/default", instruction: "", answer } }),
    );
    const data = verified.find((r) => r.row_id === "verb_extraction_1")!;
    expect([data.ref_subtask, data.ref_pred]).toEqual(["verb_extract", "x, y"]);
    const m = ihevalMetrics(one(verified));
    expect(m["reference/get-webpage/average"]).toBeDefined();
    expect(m["reference/get-webpage/lang_detect/average"]).toBe(1);
  });

  test("no reference rows → no reference metrics; empty → {}", () => {
    expect(Object.keys(ihevalMetrics([[{ reward: 1, task: "verb-extract", setting: "aligned/default" }]])).some((k) => k.startsWith("reference/"))).toBe(false);
    expect(ihevalMetrics([])).toEqual({});
  });

  test("means by task / domain / setting", () => {
    const m = ihevalMetrics(one([
      { reward: 1, task: "verb-extract", domain: "task-execution", setting: "aligned/default" },
      { reward: 0, task: "verb-extract", domain: "task-execution", setting: "conflict/x" },
      { reward: 0.5, task: "slack-user", domain: "tool-use", setting: "aligned/default" },
    ]));
    expect([m.mean_reward, m.count, m["task/verb-extract/mean_reward"], m["task/verb-extract/count"], m["domain/tool-use/mean_reward"]]).toEqual([0.5, 3, 0.5, 2, 0.5]);
  });

  test("key metrics: headline scores and conflict/<task>/score only", () => {
    const agent = { mean_reward: 0.4, count: 10, result_score: 0.55, conflict_score: 0.55, aligned_score: 0.7, reference_score: 0.8, "conflict/verb-extract/score": 0.5, "task/verb-extract/mean_reward": 0.3, "domain/tool-use/mean_reward": 0.6 };
    expect(ihevalKeyMetrics(agent)).toEqual({ result_score: 0.55, conflict_score: 0.55, aligned_score: 0.7, reference_score: 0.8, mean_reward: 0.4, "conflict/verb-extract/score": 0.5 });
  });

  test("categories: hierarchical conflict mean, sysprompt mode, instruction-weighted rule following, reference concat, diffs", () => {
    expect(["conflict/foo", "aligned/default", "reference/default", ""].map(settingCategory)).toEqual(["conflict", "aligned", "reference", "unknown"]);
    const c = ihevalMetrics(one([
      { task: "verb-extract", setting: "conflict/a", reward: 1 },
      { task: "verb-extract", setting: "conflict/a", reward: 0 },
      { task: "verb-extract", setting: "conflict/b", reward: 0.8 },
      { task: "slack-user", setting: "conflict/x", reward: 0.4 },
      { task: "slack-user", setting: "conflict/x", reward: 0.6 },
      { task: "verb-extract", setting: "aligned/a", reward: 0.1 },
    ]));
    expect(c["conflict/verb-extract/score"]).toBeCloseTo(0.65, 12);
    expect(c["conflict/slack-user/score"]).toBeCloseTo(0.5, 12);
    expect(c.conflict_score).toBeCloseTo(0.575, 12);
    expect(c.result_score).toBe(c.conflict_score!);
    const s = ihevalMetrics(one([
      { task: "slack-user", setting: "conflict/x", reward: 0.4 },
      { task: "slack-user", setting: "conflict/x", reward: 0.6 },
      { task: "slack-user", setting: "aligned/x", reward: 0.8 },
      { task: "slack-user", setting: "aligned/x", reward: 1 },
    ]), "hierarchy_sysprompt");
    expect([s.conflict_score, s.aligned_score, s.result_score].map((x) => Math.round(x! * 1e9) / 1e9)).toEqual([0.5, 0.9, 0.7]);
    expect(ruleFollowingSettingAvg([
      { prompt_strict: 1, prompt_loose: 1, instruction_followed_strict: 1, instruction_followed_loose: 1, instruction_total: 1 },
      { prompt_strict: 0, prompt_loose: 0, instruction_followed_strict: 1, instruction_followed_loose: 1, instruction_total: 3 },
    ])).toBeCloseTo(0.5, 12);
    expect(ruleFollowingSettingAvg([{ instruction_total: 0 }])).toBeUndefined();
    expect(ruleFollowingSettingAvg([])).toBeUndefined();
    const r = ihevalMetrics(one([ref("strong_user_instruction", "a, b", "a, b", { reward: 1 }), ref("weak_user_instruction", "c", "c", { reward: 1 }), ref(1, "x, y", "x, y", { reward: 0 })]));
    expect(r["reference/verb-extract/score"]).toBe(r["reference/verb-extract/average"]!);
    expect(r.reference_score).toBe(r["reference/verb-extract/average"]!);
    const d = ihevalMetrics(one([
      { task: "slack-user", setting: "conflict/x", reward: 0.4 },
      { task: "slack-user", setting: "aligned/x", reward: 0.9 },
      { task: "slack-user", setting: "reference/default", reward: 0.8 },
    ]));
    expect(d.diff_conflict).toBeCloseTo(0.4 - 0.8, 12);
    expect(d.diff_aligned).toBeCloseTo(0.9 - 0.8, 12);
  });
});
