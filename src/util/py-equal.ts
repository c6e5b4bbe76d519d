/**
 * Python `==` on JSON-shaped values, as upstream compares parsed tool arguments and grids: numbers
 * compare by value whatever their JSON spelling (1 == 1.0) and booleans equal 1 / 0, dicts compare
 * key sets and values regardless of order, lists element-wise.
 */

type Py = unknown;

function asNumber(v: Py): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return undefined;
}

/** Python `a == b` for values parsed from JSON. */
export function pyEqual(a: Py, b: Py): boolean {
  const na = asNumber(a), nb = asNumber(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na === nb;
  if (a === null || b === null) return a === b;
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => pyEqual(x, b[i]));
  }
  if (typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a as object), kb = Object.keys(b as object);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b as object, k) && pyEqual((a as Record<string, Py>)[k], (b as Record<string, Py>)[k]));
  }
  return a === b;
}

/** Python `x in list` (membership by `==`). */
export function pyIn(x: Py, list: readonly Py[]): boolean {
  return list.some((y) => pyEqual(x, y));
}
