/**
 * Filtering, sorting and the compact wire form of the viewer's row list. Pure; bundled into the page
 * too, so the served and the self-contained report behave the same.
 */
import type { RowMeta } from "./row-meta.ts";

/** The row list as sent to the page: one short array per row, strings interned. */
export interface PackedRows {
  agents: string[];
  failures: string[];
  /** [line, src, task, rollout, agentIdx, reward, failureIdx(-1 none), tokens, latency] */
  rows: (number | null)[][];
}

/** The wire form of one run (server `/api/runs` and the report's embedded block). */
export interface WireRun {
  path: string;
  rows: PackedRows;
  bad: { count: number; first: string[] };
  torn: boolean;
  aggregate: unknown;
  /** Something the page must say about this run (e.g. a report holding only a prefix). */
  note?: string;
  /** Embedded reports only: every row's JSON text. */
  lines?: string[];
}

/** Pack rows for the wire (about a third of the size of plain objects). */
export function packRows(metas: RowMeta[]): PackedRows {
  const agents: string[] = [], failures: string[] = [];
  const ai = new Map<string, number>(), fi = new Map<string, number>();
  const intern = (m: Map<string, number>, list: string[], s: string) => {
    let i = m.get(s);
    if (i === undefined) m.set(s, (i = list.push(s) - 1));
    return i;
  };
  const rows = metas.map((m) => [m.line, m.src, m.task, m.rollout, intern(ai, agents, m.agent), m.reward, m.failure === null ? -1 : intern(fi, failures, m.failure), m.tokens, m.latency]);
  return { agents, failures, rows };
}

/** Undo packRows. */
export function unpackRows(p: PackedRows): RowMeta[] {
  return p.rows.map((r) => ({
    line: r[0] as number,
    src: (r[1] === 1 ? 1 : 0) as 0 | 1,
    task: r[2] ?? null,
    rollout: r[3] ?? null,
    agent: p.agents[r[4] as number] ?? "",
    reward: r[5] ?? null,
    failure: r[6] === -1 || r[6] === null ? null : (p.failures[r[6] as number] ?? null),
    tokens: r[7] ?? null,
    latency: r[8] ?? null,
  }));
}

/** What the list shows: every field optional. */
export interface RowFilter {
  rewardMin?: number;
  rewardMax?: number;
  agent?: string;
  /** A failure type, "none" (successes only) or "any" (failures only). */
  failure?: string;
  task?: number;
  /** Indices allowed by free-text search (computed by whoever holds the text). */
  textHits?: Set<number>;
  sort?: "line" | "reward" | "tokens" | "latency";
  desc?: boolean;
}

/** Indices of `metas` that pass the filter, in the requested order. */
export function selectRows(metas: RowMeta[], f: RowFilter): number[] {
  const out: number[] = [];
  for (let i = 0; i < metas.length; i++) {
    const m = metas[i]!;
    if (f.rewardMin !== undefined && (m.reward === null || m.reward < f.rewardMin)) continue;
    if (f.rewardMax !== undefined && (m.reward === null || m.reward > f.rewardMax)) continue;
    if (f.agent !== undefined && f.agent !== "" && m.agent !== f.agent) continue;
    if (f.failure === "none" && m.failure !== null) continue;
    if (f.failure === "any" && m.failure === null) continue;
    if (f.failure !== undefined && f.failure !== "" && f.failure !== "none" && f.failure !== "any" && m.failure !== f.failure) continue;
    if (f.task !== undefined && m.task !== f.task) continue;
    if (f.textHits && !f.textHits.has(i)) continue;
    out.push(i);
  }
  const key = f.sort ?? "line";
  if (key !== "line" || f.desc) {
    const dir = f.desc ? -1 : 1;
    const val = (i: number): number => {
      const m = metas[i]!;
      const v = key === "line" ? m.src * 1e12 + m.line : m[key];
      return v === null ? Number.NaN : v;
    };
    // Rows without the sort field go last in either direction; ties keep file order.
    out.sort((a, b) => {
      const va = val(a), vb = val(b);
      const na = Number.isNaN(va), nb = Number.isNaN(vb);
      if (na || nb) return na === nb ? a - b : na ? 1 : -1;
      return va === vb ? a - b : (va - vb) * dir;
    });
  }
  return out;
}
