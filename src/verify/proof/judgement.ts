/**
 * Math proof judgement scoring (upstream resources_servers/math_proof_judgement, NeMo Skills'
 * AnswerJudgementMetrics + is_correct_judgement format 1): the policy model judges a proof with
 * "Judgement: Yes/No"; reward is agreement with the gold label, plus one-hot confusion counters and
 * precision / recall / F1 per pass@1[avg-of-k], pass@k and majority@k as Skills computes them.
 */
import { PY_SPACE_CLASS, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;
const PREFIX = new RegExp(`\\*{0,2}Judgement\\*{0,2}[${PY_SPACE_CLASS}]*:`, "i");

/** The first `Judgement: Yes/No` in a text: true (Yes), false (No), null when absent or neither. */
export function parseJudgement(text: unknown): boolean | null {
  if (typeof text !== "string" || text === "") return null;
  const m = PREFIX.exec(text);
  if (!m) return null;
  const verdict = pyStrip(pyStrip(text.slice(m.index + m[0].length)).replace(/^\*+/, "")).toLowerCase();
  if (verdict.startsWith("yes")) return true;
  if (verdict.startsWith("no")) return false;
  return null;
}

/** `Yes` / `No` / null: the majority@k vote. */
export function verdictLabel(v: boolean | null): string | null {
  return v === true ? "Yes" : v === false ? "No" : null;
}

function fromLabel(label: unknown): boolean | null {
  return label === "Yes" ? true : label === "No" ? false : null;
}

/** One-hot [tp, fp, fn, tn]; all zero when either side is unknown. */
export function confusion(pred: boolean | null, gt: boolean | null): [number, number, number, number] {
  if (pred === null || gt === null) return [0, 0, 0, 0];
  return [Number(pred && gt), Number(pred && !gt), Number(!pred && gt), Number(!pred && !gt)];
}

/** One rollout's verdict. */
export function judgeJudgement(text: string, expected: unknown): { reward: number; extracted_judgement: string | null; tp: number; fp: number; fn: number; tn: number } {
  const pred = parseJudgement(text);
  const gt = parseJudgement(expected);
  const [tp, fp, fn, tn] = confusion(pred, gt);
  return { reward: pred !== null && gt !== null && pred === gt ? 1.0 : 0.0, extracted_judgement: verdictLabel(pred), tp, fp, fn, tn };
}

/** Precision / recall / F1 (percent) macro-averaged over samples; Skills' defaults for empty denominators. */
function prf(samples: [number, number, number][], positives: number): [number, number, number] {
  if (samples.length === 0) return [0, 0, 0];
  let p = 0;
  let r = 0;
  let f = 0;
  for (const [tp, fp] of samples) {
    const prec = tp + fp > 0 ? tp / (tp + fp) : 1.0;
    const rec = positives > 0 ? tp / positives : 1.0;
    p += prec;
    r += rec;
    f += prec + rec > 0 ? (2 * prec * rec) / (prec + rec) : 0.0;
  }
  const n = samples.length;
  return [(100 * p) / n, (100 * r) / n, (100 * f) / n];
}

/** pass@k's verdict: the gold one when any rollout found it, else the first known one. */
export function passVerdict(preds: (boolean | null)[], gt: boolean | null): boolean | null {
  if (gt !== null && preds.includes(gt)) return gt;
  return preds.find((p) => p !== null) ?? null;
}

/** majority@k's verdict: more Yes or more No; a tie goes to the first known vote. */
export function majorityVerdict(preds: (boolean | null)[]): boolean | null {
  const yes = preds.filter((p) => p === true).length;
  const no = preds.filter((p) => p === false).length;
  if (yes === 0 && no === 0) return null;
  if (yes !== no) return yes > no;
  return preds.find((p) => p !== null) ?? null;
}

/** Precision / recall / F1 for every k, plus `total_positives`. */
export function judgementClassificationMetrics(tasks: Obj[][]): Record<string, number> {
  if (tasks.length === 0) return {};
  const maxK = Math.max(...tasks.map((t) => t.length));
  if (maxK === 0) return {};
  const gold = tasks.map((t) => (t.length > 0 ? parseJudgement(t[0]!.expected_judgement) : null));
  const positives = gold.filter((g) => g === true).length;
  const out: Record<string, number> = {};
  const count = (pick: (rollouts: Obj[], gt: boolean | null) => boolean | null | undefined): [number, number, number] => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    tasks.forEach((rollouts, i) => {
      const pred = pick(rollouts, gold[i]!);
      if (pred === undefined) return;
      const [a, b, c] = confusion(pred, gold[i]!);
      tp += a;
      fp += b;
      fn += c;
    });
    return [tp, fp, fn];
  };
  const perSample = Array.from({ length: maxK }, (_, s) => count((r) => (s < r.length ? fromLabel(r[s]!.extracted_judgement) : undefined)));
  const put = (prefix: string, [p, r, f]: [number, number, number]) => {
    out[`${prefix}/precision`] = p;
    out[`${prefix}/recall`] = r;
    out[`${prefix}/f1`] = f;
  };
  for (let k = 1; k <= maxK; k++) put(`pass@1[avg-of-${k}]`, prf(perSample.slice(0, k), positives));
  for (let k = 1; k <= maxK; k++) put(`pass@${k}`, prf([count((r, gt) => passVerdict(r.slice(0, k).map((x) => fromLabel(x.extracted_judgement)), gt))], positives));
  for (let k = 1; k <= maxK; k++) put(`majority@${k}`, prf([count((r) => majorityVerdict(r.slice(0, k).map((x) => fromLabel(x.extracted_judgement))))], positives));
  out.total_positives = positives;
  return out;
}
