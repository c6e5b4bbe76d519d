/**
 * WorkBench's analytics tools (AnalyticsTool): visitor lookup, daily counts and averages over the
 * visits table, and `create_plot`, whose only effect is a file path appended to the plots table (the
 * one analytics table the verifier compares). Date bounds compare as strings, as the pandas column
 * comparison does; per-day results come back keyed by date in sorted order (groupby sorts its keys).
 */
import { pyFloat } from "../../../util/py-int.ts";
import { codePointCompare, fstr, PyError, strCompare, truthy } from "./py-ops.ts";
import { appendAtLen, filterRows, records, type Row, type Table } from "./table.ts";
import type { ToolDef, WorkplaceState } from "./tool-def.ts";

const OWNER = "AnalyticsTool";
const VALUES = ["total_visits", "session_duration_seconds", "user_engaged", "visits_direct", "visits_referral", "visits_search_engine", "visits_social_media"];
const PLOT_TYPES = ["bar", "line", "scatter", "histogram"];

/** The visits table as upstream's reset_state leaves it: `user_engaged` is the bool `== "True"`. */
export function analyticsFromCsv(t: Table): Table {
  return { ...t, rows: t.rows.map((r) => ({ ...r, user_engaged: r.user_engaged === "True" })) };
}

function window(state: WorkplaceState, lo: unknown, hi: unknown): Table {
  let data = state.analytics;
  if (truthy(lo)) data = filterRows(data, (r) => strCompare(r.date_of_visit, lo, ">="));
  if (truthy(hi)) data = filterRows(data, (r) => strCompare(r.date_of_visit, hi, "<="));
  return data;
}

/** groupby("date_of_visit") → {date: reduce(rows)} with sorted keys. */
function perDay<T>(t: Table, reduce: (rows: Row[]) => T): Record<string, T> {
  const groups = new Map<string, Row[]>();
  for (const r of t.rows) {
    const k = fstr(r.date_of_visit);
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const keys = [...groups.keys()].sort(codePointCompare);
  return Object.fromEntries(keys.map((k) => [k, reduce(groups.get(k)!)]));
}

/** pandas' groupby mean: Kahan-compensated sum over the group, then divided by the count. */
export function groupMean(values: readonly number[]): number {
  let sum = 0;
  let comp = 0;
  for (const v of values) {
    const y = v - comp;
    const t = sum + y;
    comp = t - sum - y;
    sum = t;
  }
  return sum / values.length;
}

/** Python `bool(x)` of a cell (astype(bool) on an object column). */
const asBool = (v: unknown) => (typeof v === "string" ? v.length > 0 : truthy(v) || (typeof v === "number" && Number.isNaN(v)));

/** The analytics tools by their public name. */
export const ANALYTICS_TOOLS: Record<string, ToolDef> = {
  analytics_get_visitor_information_by_id: {
    owner: OWNER,
    method: "get_visitor_information_by_id",
    params: { visitor_id: undefined },
    run(state, { visitor_id }) {
      if (!truthy(visitor_id)) return "Visitor ID not provided.";
      const hit = records(filterRows(state.analytics, (r) => r.visitor_id === visitor_id));
      return hit.length > 0 ? hit : "Visitor not found.";
    },
  },
  analytics_create_plot: {
    owner: OWNER,
    method: "create_plot",
    params: { time_min: undefined, time_max: undefined, value_to_plot: undefined, plot_type: undefined },
    run(state, { time_min, time_max, value_to_plot, plot_type }) {
      if (!truthy(time_min)) return "Start date not provided.";
      if (!truthy(time_max)) return "End date not provided.";
      if (!VALUES.includes(value_to_plot as string)) return `Value to plot must be one of ${VALUES.map((v) => `'${v}'`).join(", ")}`;
      if (!PLOT_TYPES.includes(plot_type as string)) return "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'";
      const file_path = `plots/${fstr(time_min)}_${fstr(time_max)}_${fstr(value_to_plot)}_${fstr(plot_type)}.png`;
      state.plots = appendAtLen(state.plots, { file_path });
      return file_path;
    },
  },
  analytics_total_visits_count: {
    owner: OWNER,
    method: "total_visits_count",
    params: { time_min: undefined, time_max: undefined },
    run(state, { time_min, time_max }) {
      return perDay(window(state, time_min, time_max), (rows) => rows.length);
    },
  },
  analytics_engaged_users_count: {
    owner: OWNER,
    method: "engaged_users_count",
    params: { time_min: undefined, time_max: undefined },
    run(state, { time_min, time_max }) {
      return perDay(window(state, time_min, time_max), (rows) => rows.filter((r) => asBool(r.user_engaged)).length);
    },
  },
  analytics_traffic_source_count: {
    owner: OWNER,
    method: "traffic_source_count",
    params: { time_min: undefined, time_max: undefined, traffic_source: undefined },
    run(state, { time_min, time_max, traffic_source }) {
      const data = window(state, time_min, time_max);
      if (truthy(traffic_source)) return perDay(data, (rows) => rows.filter((r) => r.traffic_source === traffic_source).length);
      return perDay(data, (rows) => rows.length);
    },
  },
  analytics_get_average_session_duration: {
    owner: OWNER,
    method: "get_average_session_duration",
    params: { time_min: undefined, time_max: undefined },
    run(state, { time_min, time_max }) {
      const data = window(state, time_min, time_max);
      const toFloat = (v: unknown) => {
        try {
          return pyFloat(v);
        } catch (e) {
          throw new PyError("ValueError", (e as Error).message);
        }
      };
      const converted: Table = { ...data, rows: data.rows.map((r) => ({ ...r, session_duration_seconds: toFloat(r.session_duration_seconds) })) };
      // With no bound upstream's `data` IS the session's table, so the float column sticks (later
      // visitor lookups show floats); with a bound it is a filtered copy.
      if (!truthy(time_min) && !truthy(time_max)) state.analytics = converted;
      return perDay(converted, (rows) => groupMean(rows.map((r) => r.session_duration_seconds as number)));
    },
  },
};
