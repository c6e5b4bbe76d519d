/**
 * Arena-Hard pairwise judging (upstream resources_servers/arena_judge, arena-hard-auto's
 * show_result.py): the `[[A>B]]`-style verdict, the per-rollout scores, and the Arena-Elo headline —
 * the candidate's win-rate against the baseline from a two-player Elo fit over the implied battles,
 * with a bootstrap 95 % interval.
 *
 * The fit: upstream runs scikit-learn's unpenalised logistic regression on battles that all pit
 * candidate (feature +ln 10) against baseline (−ln 10). Every row is the same vector, so the maximum
 * likelihood is reached where the predicted win probability equals the observed rate q (model_a wins
 * count twice, ties once, over twice the battles), i.e. Elo = 1000 + 400·log10(q / (1 − q)). We use that
 * closed form; lbfgs converges to it within its tolerance (1e-8), so results agree unless a win-rate
 * lands within ~1e-6 of a rounding boundary.
 */
import { npPercentile, npRandint } from "../../util/np-random.ts";
import { PyRandom } from "../../util/py-random.ts";
import { pyRound } from "../../util/py-round.ts";

/** The five labels, in decreasing candidate-favour order (gen-base direction). */
export const ARENA_VERDICTS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"] as const;
/** A valid verdict label. */
export type ArenaVerdict = (typeof ARENA_VERDICTS)[number];

const VERDICT_RE = /\[\[([AB<>=]+)\]\]/g;
// arena-hard-auto's WEIGHT: a strict verdict counts as three battles.
const STRICT_WEIGHT = 3;

/** The verdict: every `[[…]]` label in the text must agree and be one of the five; else null. */
export function parseArenaVerdict(text: string | null | undefined): ArenaVerdict | null {
  if (!text) return null;
  const labels = new Set([...text.matchAll(VERDICT_RE)].map((m) => m[1]!));
  if (labels.size !== 1) return null;
  const v = [...labels][0]!;
  return (ARENA_VERDICTS as readonly string[]).includes(v) ? (v as ArenaVerdict) : null;
}

/** Per-rollout scores for pass@k (upstream `_arena_score_fn`). */
export function arenaScores(r: Record<string, unknown>): Record<string, number> {
  const gen = r.verdict_gen_base;
  const base = r.verdict_base_gen;
  const strict = gen === "A>>B" ? 1 : 0;
  const slight = gen === "A>B" ? 1 : 0;
  return {
    wins: strict + slight,
    strict_wins: strict,
    ties: gen === "A=B" ? 1 : 0,
    losses: gen === "B>A" || gen === "B>>A" ? 1 : 0,
    double_wins: (gen === "A>>B" || gen === "A>B") && (base === "B>A" || base === "B>>A") ? 1 : 0,
    invalid_gen_base: r.invalid_gen_base ? 1 : 0,
  };
}

/** The most candidate-favouring verdict among rollouts (the reverse order for the swapped direction). */
export function bestOfRollouts(verdicts: unknown[], reverse: boolean): ArenaVerdict | null {
  const order = reverse ? [...ARENA_VERDICTS].reverse() : ARENA_VERDICTS;
  for (const v of order) if (verdicts.includes(v)) return v;
  return null;
}

type Winner = "model_a" | "model_b" | "tie";

/** Battles (model_a = candidate) implied by `[gen-base, base-gen]` pairs, in upstream's row order, and the invalid count. */
export function battlesOf(pairs: (string | null)[][]): { winners: Winner[]; invalid: number } {
  const winners: Winner[] = [];
  let invalid = 0;
  const add = (v: string | null, swapped: boolean) => {
    if (v === null || !(ARENA_VERDICTS as readonly string[]).includes(v)) {
      invalid++;
      return;
    }
    const w: Winner = v === "A=B" ? "tie" : v.startsWith("A") !== swapped ? "model_a" : "model_b";
    const weight = v === "A>>B" || v === "B>>A" ? STRICT_WEIGHT : 1;
    for (let i = 0; i < weight; i++) winners.push(w);
  };
  for (const [gen, base] of pairs) {
    add(gen ?? null, false);
    add(base ?? null, true);
  }
  return { winners, invalid };
}

/** The candidate's Elo (baseline pinned at 1000); null when the battles hold a single outcome class (no fit). */
export function candidateElo(winners: readonly Winner[]): number | null {
  let a = 0;
  let b = 0;
  let t = 0;
  for (const w of winners) w === "model_a" ? a++ : w === "model_b" ? b++ : t++;
  if (t === 0 && (a === 0 || b === 0)) return null;
  const q = (2 * a + t) / (2 * winners.length);
  return 1000 + 400 * Math.log10(q / (1 - q));
}

/** Win-rate (%) of an Elo against the 1000 baseline, rounded to 2 places as upstream's table. */
function winRate(elo: number): number {
  return pyRound((1 / (1 + 10 ** ((1000 - elo) / 400))) * 100, 2);
}

/** One Arena-Elo summary. */
export interface ArenaElo {
  score: number;
  ci_lower: number;
  ci_upper: number;
  invalid_scores: number;
  n: number;
}

/** Score and bootstrap interval for `[gen-base, base-gen]` verdict pairs (NaN fields when nothing is usable). */
export function arenaElo(pairs: (string | null)[][], rounds: number, seed: number): ArenaElo {
  const none = (invalid: number): ArenaElo => ({ score: Number.NaN, ci_lower: Number.NaN, ci_upper: Number.NaN, invalid_scores: invalid, n: pairs.length });
  if (pairs.length === 0) return none(0);
  const { winners, invalid } = battlesOf(pairs);
  if (winners.length === 0) return none(invalid);
  const elo = candidateElo(winners);
  if (elo === null) {
    // One outcome only: upstream reports a degenerate 100 % / 0 % without an interval.
    return { score: winners[0] === "model_a" ? 100.0 : 0.0, ci_lower: 0.0, ci_upper: 0.0, invalid_scores: invalid, n: pairs.length };
  }
  // np.random.seed(seed); each round resamples the battles with replacement (pandas sample → randint).
  const gen = PyRandom.fromGenrand(seed);
  const boot: number[] = [];
  const n = winners.length;
  for (let r = 0; r < rounds; r++) {
    const sample: Winner[] = new Array(n);
    for (let i = 0; i < n; i++) sample[i] = winners[npRandint(gen, n)]!;
    const e = candidateElo(sample);
    if (e !== null) boot.push(e); // a one-class resample cannot be fitted: skipped, as upstream
  }
  const score = winRate(elo);
  return {
    score,
    ci_lower: pyRound(winRate(npPercentile(boot, 2.5)) - score, 2),
    ci_upper: pyRound(winRate(npPercentile(boot, 97.5)) - score, 2),
    invalid_scores: invalid,
    n: pairs.length,
  };
}

/** `arena_elo/…` metrics: overall and per category (tasks collapsed to their best verdict per direction). */
export function arenaEloMetrics(tasks: Record<string, unknown>[][], rounds: number, seed: number): Record<string, number> {
  const pairs: (string | null)[][] = [];
  const byCategory = new Map<string, (string | null)[][]>();
  for (const rollouts of tasks) {
    if (rollouts.length === 0) continue;
    const pair = [bestOfRollouts(rollouts.map((r) => r.verdict_gen_base), false), bestOfRollouts(rollouts.map((r) => r.verdict_base_gen), true)];
    pairs.push(pair);
    const cat = rollouts[0]!.category;
    if (cat !== undefined && cat !== null) {
      const key = String(cat);
      byCategory.set(key, [...(byCategory.get(key) ?? []), pair]);
    }
  }
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(arenaElo(pairs, rounds, seed))) out[`arena_elo/${k}`] = v;
  for (const [cat, ps] of byCategory) for (const [k, v] of Object.entries(arenaElo(ps, rounds, seed))) out[`arena_elo/${cat}/${k}`] = v;
  return out;
}
