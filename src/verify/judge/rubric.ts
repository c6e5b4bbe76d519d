/**
 * Rubric judges (upstream `multichallenge`, `inverse_if`): one judge call per rubric item, a
 * verdict per item, and the aggregation of item scores into the reward.
 */
import { pyRegex } from "../../util/py-regex.ts";
import { pyStrip } from "../../util/py-str.ts";
import { pyStr } from "../../util/py-str-of.ts";

/** How item scores become the reward. */
export const AGGREGATION_MODES = ["mean", "min", "max", "all", "any", "weighted"] as const;
/** One of AGGREGATION_MODES. */
export type AggregationMode = (typeof AGGREGATION_MODES)[number];

/**
 * Aggregate item scores. `weighted` uses `weights` when given (multichallenge; a zero total is 0)
 * and is the plain mean without them (inverse_if's items carry no weight).
 */
export function aggregateScores(scores: number[], mode: AggregationMode, weights?: number[]): number {
  if (scores.length === 0) return 0.0;
  switch (mode) {
    case "mean":
      return scores.reduce((a, b) => a + b, 0) / scores.length;
    case "min":
      return Math.min(...scores);
    case "max":
      return Math.max(...scores);
    case "all":
      return scores.every((s) => s >= 0.99) ? 1.0 : 0.0;
    case "any":
      return scores.some((s) => s >= 0.99) ? 1.0 : 0.0;
    case "weighted": {
      if (!weights) return scores.reduce((a, b) => a + b, 0) / scores.length;
      const total = weights.reduce((a, b) => a + b, 0);
      if (total === 0) return 0.0;
      return scores.reduce((a, s, i) => a + s * weights[i]!, 0) / total;
    }
  }
}

/**
 * MultiChallenge's verdict: whichever label occurs LAST wins; with neither, the last line decides
 * ("YES" in it, else "NO" in it, else NO).
 */
export function multichallengeVerdict(text: string, yesLabel: string, noLabel: string): "YES" | "NO" {
  const y = text.lastIndexOf(yesLabel);
  const n = text.lastIndexOf(noLabel);
  if (y < 0 && n < 0) {
    const lines = pyStrip(text).split("\n");
    const last = pyStrip(lines[lines.length - 1] ?? "").toUpperCase();
    if (last.includes("YES")) return "YES";
    return "NO";
  }
  return y > n ? "YES" : "NO";
}

/** A message list rendered as `[ROLE]: content` blocks (thinking messages left out unless asked). */
export function contextFromMessages(messages: Record<string, unknown>[], excludeThinking = true): string {
  const parts: string[] = [];
  for (const m of messages) {
    const role = typeof m.role === "string" ? m.role : "unknown";
    if (excludeThinking && role === "thinking") continue;
    const content = m.content ?? "";
    parts.push(`[${role.toUpperCase()}]: ${pyStr(content)}`);
  }
  return parts.join("\n\n");
}

const FENCED = pyRegex("```(?:json)?\\s*(\\{.*?\\})\\s*```", { dotAll: true });
const RESULT_OBJECT = pyRegex('\\{[^{}]*"result"\\s*:\\s*"(PASS|FAIL)"[^{}]*\\}', { ignoreCase: true });

function readResultJson(json: string): [string, string] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const o = parsed as Record<string, unknown>;
  const result = o.result ?? "";
  if (typeof result !== "string") return undefined; // `.upper()` of a non-string raises; upstream moves on
  const verdict = pyStrip(result.toUpperCase());
  if (verdict !== "PASS" && verdict !== "FAIL") return undefined;
  const explanation = o.explanation ?? "";
  return [verdict, typeof explanation === "string" ? explanation : JSON.stringify(explanation)];
}

/**
 * Inverse IF's verdict and explanation: a fenced JSON block, else any `{…"result": "PASS|FAIL"…}`
 * object, else PASS/FAIL in the last five lines (bottom up), else FAIL.
 */
export function inverseIfVerdict(text: string): [verdict: "PASS" | "FAIL", explanation: string] {
  const fenced = FENCED.search(text);
  const a = fenced ? readResultJson(fenced[1]!) : undefined;
  if (a) return a as ["PASS" | "FAIL", string];
  const obj = RESULT_OBJECT.search(text);
  const b = obj ? readResultJson(obj[0]) : undefined;
  if (b) return b as ["PASS" | "FAIL", string];
  const lines = pyStrip(text).split("\n");
  for (const line of lines.slice(-5).reverse()) {
    const upper = pyStrip(line).toUpperCase();
    if (upper.includes("PASS")) return ["PASS", ""];
    if (upper.includes("FAIL")) return ["FAIL", ""];
  }
  return ["FAIL", ""];
}
