/**
 * ROUGE as Google's `rouge-score` computes it without a stemmer: lower-case, every run of characters
 * outside [a-z0-9] becomes a space (so accented and non-Latin letters vanish, as upstream), then
 * ROUGE-1 (unigram overlap) and ROUGE-L (longest common subsequence) precision/recall/F.
 */

/** One ROUGE score. */
export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/** `rouge_score.tokenize.tokenize(text, None)`. */
export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .split(/\s+/)
    .filter((t) => /^[a-z0-9]+$/.test(t));
}

const fmeasure = (p: number, r: number) => (p + r > 0 ? (2 * p * r) / (p + r) : 0);

/** ROUGE-1 of `prediction` against `target`. */
export function rouge1(target: string, prediction: string): RougeScore {
  const t = rougeTokens(target);
  const p = rougeTokens(prediction);
  const counts = new Map<string, number>();
  for (const w of t) counts.set(w, (counts.get(w) ?? 0) + 1);
  const pc = new Map<string, number>();
  for (const w of p) pc.set(w, (pc.get(w) ?? 0) + 1);
  let overlap = 0;
  for (const [w, n] of pc) overlap += Math.min(n, counts.get(w) ?? 0);
  const precision = overlap / Math.max(p.length, 1);
  const recall = overlap / Math.max(t.length, 1);
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/** ROUGE-L of `prediction` against `target` (LCS over tokens). */
export function rougeL(target: string, prediction: string): RougeScore {
  const t = rougeTokens(target);
  const p = rougeTokens(prediction);
  if (t.length === 0 || p.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  // One rolling row of the LCS table (O(len(p)) memory).
  let prev = new Uint32Array(p.length + 1);
  let cur = new Uint32Array(p.length + 1);
  for (let i = 1; i <= t.length; i++) {
    for (let j = 1; j <= p.length; j++) cur[j] = t[i - 1] === p[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    [prev, cur] = [cur, prev];
  }
  const lcs = prev[p.length]!;
  const precision = lcs / p.length;
  const recall = lcs / t.length;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}
