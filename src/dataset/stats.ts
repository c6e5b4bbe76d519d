/**
 * Dataset statistics of `gym dataset collate` (components §4.1 step 3): streaming Welford
 * accumulators merged with Chan's formula, the per-dataset metrics document, and the
 * tolerant diff against an earlier `_metrics.json` (step 4).
 */
import { pyJsonDumps } from "../util/py-json.ts";

/** Running count/mean/variance/min/max of one numeric statistic. */
export class AvgMinMax {
  total = 0;
  mean = 0;
  m2 = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  /** Add one value. */
  observe(x: number): void {
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
    this.total++;
    const d = x - this.mean;
    this.mean += d / this.total;
    this.m2 += d * (x - this.mean);
  }

  /** Merge another accumulator into this one (Chan et al.). */
  add(o: AvgMinMax): void {
    if (o.total === 0) return;
    if (this.total === 0) {
      Object.assign(this, { total: o.total, mean: o.mean, m2: o.m2, min: o.min, max: o.max });
      return;
    }
    const n = this.total + o.total;
    const d = o.mean - this.mean;
    this.mean += d * (o.total / n);
    this.m2 += o.m2 + d * d * ((this.total * o.total) / n);
    this.total = n;
    this.min = Math.min(this.min, o.min);
    this.max = Math.max(this.max, o.max);
  }

  /** The published shape (values rounded: 2 dp when |x| ≥ 1, else 3 dp). */
  toJSON(): Record<string, number> {
    const n = this.total;
    return {
      "Total # non-null values": n,
      Average: round(n > 0 ? this.mean : 0),
      Min: round(n > 0 ? this.min : 0),
      Max: round(n > 0 ? this.max : 0),
      "Standard deviation": round(n > 1 ? Math.sqrt(this.m2 / (n - 1)) : 0),
    };
  }
}

/** Round as upstream: 2 decimals for |x| ≥ 1, else 3. */
export function round(x: number): number {
  const f = Math.abs(x) >= 1 ? 100 : 1000;
  return Math.round(x * f) / f;
}

/** Statistics of one dataset (or of all datasets of one type, merged). */
export class DatasetStats {
  examples = 0;
  tools = new AvgMinMax();
  words = new AvgMinMax();
  turns = new AvgMinMax();
  temperature = new AvgMinMax();
  /** Other top-level keys: numbers/bools → AvgMinMax, strings → counts per value. */
  other = new Map<string, AvgMinMax | Map<string, number>>();
  keyCounts = new Map<string, number>();
  offending: number[] = [];

  /** Observe one valid row (its `responses_create_params` already checked). */
  observe(row: Record<string, unknown>): void {
    const rcp = row.responses_create_params as Record<string, unknown>;
    this.examples++;
    if (Array.isArray(rcp.tools)) this.tools.observe(rcp.tools.length);
    const input = typeof rcp.input === "string" ? [{ role: "user" }] : Array.isArray(rcp.input) ? (rcp.input as Record<string, unknown>[]) : [];
    const users = input.filter((i) => i && i.role === "user").length;
    if (users > 0) this.turns.observe(users);
    if (typeof rcp.temperature === "number") this.temperature.observe(rcp.temperature);
    this.words.observe(pyJsonDumps(rcp).split(/\s+/).filter((w) => w !== "").length);
    for (const [k, v] of Object.entries(row)) {
      this.keyCounts.set(k, (this.keyCounts.get(k) ?? 0) + 1);
      if (k === "responses_create_params" || k === "response") continue;
      for (const item of Array.isArray(v) ? v : [v]) {
        const num = typeof item === "boolean" ? Number(item) : typeof item === "number" ? item : undefined;
        if (num !== undefined) {
          let acc = this.other.get(k);
          if (!(acc instanceof AvgMinMax)) this.other.set(k, (acc = new AvgMinMax()));
          acc.observe(num);
        } else if (typeof item === "string") {
          let acc = this.other.get(k);
          if (!(acc instanceof Map)) this.other.set(k, (acc = new Map()));
          acc.set(item, (acc.get(item) ?? 0) + 1);
        }
      }
    }
  }

  /** Merge the fixed statistics of another dataset (the type-level aggregate keeps no per-key extras, as upstream). */
  add(o: DatasetStats): void {
    this.examples += o.examples;
    this.tools.add(o.tools);
    this.words.add(o.words);
    this.turns.add(o.turns);
    this.temperature.add(o.temperature);
  }

  /** The metrics document (without the dataset config part). */
  toJSON(withOther = true): Record<string, unknown> {
    const out: Record<string, unknown> = {
      "Number of examples": this.examples,
      "Number of tools": this.tools.toJSON(),
      "Json-dumped number of words (proxy for token count)": this.words.toJSON(),
      "Number of turns": this.turns.toJSON(),
      Temperature: this.temperature.toJSON(),
    };
    if (withOther) {
      for (const [k, acc] of this.other) {
        out[k] = acc instanceof AvgMinMax ? acc.toJSON() : { unique_count: acc.size, total_count: [...acc.values()].reduce((a, b) => a + b, 0) };
      }
    }
    return out;
  }
}

function numericClose(a: number, b: number): boolean {
  if (a === b) return true;
  const tol = Math.max(Math.abs(a), Math.abs(b)) >= 1 ? 5e-3 : 5e-4;
  return Math.abs(a - b) <= Math.max(tol, 1e-9);
}

/** Differences between an earlier metrics document and a new one (old keys must remain; numbers within tolerance; lists as multisets). */
export function diffMetrics(prev: unknown, next: unknown, path = "", diffs: string[] = []): string[] {
  if (prev && next && typeof prev === "object" && typeof next === "object" && !Array.isArray(prev) && !Array.isArray(next)) {
    for (const k of Object.keys(prev)) {
      const sub = path ? `${path}.${k}` : k;
      if (!Object.hasOwn(next, k)) diffs.push(`Missing key in new metrics: ${sub}`);
      else diffMetrics((prev as Record<string, unknown>)[k], (next as Record<string, unknown>)[k], sub, diffs);
    }
    return diffs;
  }
  if (Array.isArray(prev) && Array.isArray(next)) {
    if (prev.length !== next.length) {
      diffs.push(`List length differs at ${path}: ${prev.length} != ${next.length}`);
      return diffs;
    }
    const used = new Set<number>();
    prev.forEach((pv, i) => {
      const j = next.findIndex((nv, j2) => !used.has(j2) && diffMetrics(pv, nv, "", []).length === 0);
      if (j < 0) diffs.push(`No matching element for ${path}[${i}] in new metrics (unordered)`);
      else used.add(j);
    });
    return diffs;
  }
  if (typeof prev === "number" && typeof next === "number") {
    if (!numericClose(prev, next)) diffs.push(`Numeric mismatch at ${path}: ${prev} != ${next}`);
    return diffs;
  }
  if (JSON.stringify(prev) !== JSON.stringify(next)) diffs.push(`Value differs at ${path}: ${JSON.stringify(prev)} != ${JSON.stringify(next)}`);
  return diffs;
}
