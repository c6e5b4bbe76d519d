/**
 * Result-set comparison of the two SQL verifiers, with Python's semantics.
 * - BIRD (`birdResultsMatch`): `set(gold) == set(pred)` over row tuples — order and duplicates
 *   ignored; ints and floats equal by value (1 == 1.0), str/bytes/None only equal themselves.
 * - Spider 2.0-Lite (`spiderResultsMatch` / `spiderMultiMatch`): column-vector matching — every gold
 *   column (or the `condition_cols` ones) must equal SOME predicted column; strings that parse as
 *   int/float are coerced, None/NaN count as 0, numbers match within abs_tol 1e-2 (math.isclose),
 *   and with ignore_order both vectors are sorted by `(str(x), is-number)` first.
 */
import { pyStrip } from "../../../util/py-str.ts";
import { pyFloat } from "../../../util/py-int.ts";
import { pyStrOfValue, type SqlRow, type SqlValue } from "./values.ts";

/** A key equal for two cells exactly when Python's `==` (and hash) says they are equal. */
function cellKey(v: SqlValue): string {
  if (v === null) return "n";
  if (typeof v === "bigint") return `i${v}`;
  if (typeof v === "boolean") return v ? "i1" : "i0";
  if (typeof v === "number") return Number.isInteger(v) ? `i${BigInt(v)}` : `f${v}`;
  if (typeof v === "string") return `s${v}`;
  return `b${Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

const rowKey = (r: SqlRow): string => JSON.stringify(r.map(cellKey));

/** BIRD's rule: unordered set equality of the rows. */
export function birdResultsMatch(gold: readonly SqlRow[], pred: readonly SqlRow[]): boolean {
  const a = new Set(gold.map(rowKey));
  const b = new Set(pred.map(rowKey));
  if (a.size !== b.size) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
}

const INT_TEXT = /^[+-]?\d+(?:_\d+)*$/;

/** Upstream `_coerce`: a str becomes int(v), else float(v), else stays. */
function coerce(v: SqlValue): SqlValue {
  if (typeof v !== "string") return v;
  const s = pyStrip(v);
  if (INT_TEXT.test(s)) return BigInt(s.replaceAll("_", ""));
  try {
    return pyFloat(v);
  } catch {
    return v;
  }
}

/** Upstream `_normalize`: None and float NaN count as 0. */
function normalize(v: SqlValue): SqlValue {
  if (v === null) return 0n;
  if (typeof v === "number" && Number.isNaN(v)) return 0n;
  return v;
}

const isNum = (v: SqlValue): v is bigint | number | boolean => typeof v === "bigint" || typeof v === "number" || typeof v === "boolean";
const toFloat = (v: bigint | number | boolean): number => (typeof v === "boolean" ? (v ? 1 : 0) : Number(v));

/** Python's `math.isclose(a, b, abs_tol=…)` with the default rel_tol 1e-9. */
export function pyIsClose(a: number, b: number, absTol: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(1e-9 * b) || diff <= Math.abs(1e-9 * a) || diff <= absTol;
}

/** Python str ordering: by code point (JS `<` compares UTF-16 units, which differs past U+FFFF). */
function cmpCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (≥ U+D800 as a unit) stands for a code point above every BMP unit past U+DFFF.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? (y > 0xdfff ? 1 : -1) : x > 0xdfff ? -1 : 1;
    return x - y;
  }
  return a.length - b.length;
}

/** Upstream `_col_vector`: one column, coerced and normalized (a short row raises like Python's IndexError). */
function colVector(rows: readonly SqlRow[], col: number): SqlValue[] {
  return rows.map((row) => {
    const i = col < 0 ? row.length + col : col;
    if (i < 0 || i >= row.length) throw new RangeError(`tuple index out of range (column ${col} of a ${row.length}-column row)`);
    return normalize(coerce(row[i]!));
  });
}

function vectorsMatch(v1: SqlValue[], v2: SqlValue[], absTol: number, ignoreOrder: boolean): boolean {
  if (v1.length !== v2.length) return false;
  let a = v1;
  let b = v2;
  if (ignoreOrder) {
    // key = (x is None, str(x), isinstance(x, (int, float))); None cannot remain after normalize.
    const sortByKey = (v: SqlValue[]) =>
      v
        .map((x) => ({ x, s: pyStrOfValue(x), n: isNum(x) ? 1 : 0 }))
        .sort((p, q) => cmpCodePoints(p.s, q.s) || p.n - q.n)
        .map((p) => p.x);
    a = sortByKey(a);
    b = sortByKey(b);
  }
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === null && y === null) continue;
    if (isNum(x) && isNum(y)) {
      if (!pyIsClose(toFloat(x), toFloat(y), absTol)) return false;
    } else if (cellKey(x) !== cellKey(y)) return false;
  }
  return true;
}

/** Upstream `compare_result_sets`: each gold column vector must appear among the predicted ones. */
export function spiderResultsMatch(gold: readonly SqlRow[], pred: readonly SqlRow[], conditionCols: readonly number[] | null = null, ignoreOrder = true, absTol = 1e-2): boolean {
  if (gold.length === 0 && pred.length === 0) return true;
  if (gold.length === 0 || pred.length === 0) return false;
  const goldCols = gold[0]!.length;
  const predCols = pred[0]!.length;
  let cols: number[];
  if (conditionCols && conditionCols.length > 0) {
    const valid = conditionCols.filter((i) => i < goldCols);
    cols = valid.length > 0 ? valid : [...Array(goldCols).keys()];
  } else cols = [...Array(goldCols).keys()];
  const goldVecs = cols.map((i) => colVector(gold, i));
  const predVecs = [...Array(predCols).keys()].map((j) => colVector(pred, j));
  return goldVecs.every((gv) => predVecs.some((pv) => vectorsMatch(gv, pv, absTol, ignoreOrder)));
}

/** Upstream `compare_multi_result_sets`: true when any gold alternative matches. */
export function spiderMultiMatch(goldSets: readonly (readonly SqlRow[])[], pred: readonly SqlRow[], multiConditionCols: readonly unknown[] | null = null, ignoreOrder = true, absTol = 1e-2): boolean {
  if (goldSets.length === 0) return false;
  let perSet: (readonly number[])[];
  if (!multiConditionCols || multiConditionCols.length === 0) perSet = goldSets.map(() => []);
  else if (!multiConditionCols.every((c) => Array.isArray(c))) perSet = goldSets.map(() => multiConditionCols as number[]);
  else perSet = multiConditionCols.map((c) => c as number[]);
  // zip(): the shorter of the two lists decides how many alternatives are tried.
  const n = Math.min(goldSets.length, perSet.length);
  for (let i = 0; i < n; i++) if (spiderResultsMatch(goldSets[i]!, pred, perSet[i]!, ignoreOrder, absTol)) return true;
  return false;
}
