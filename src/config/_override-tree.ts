/**
 * Path helpers for applying overrides to a plain config tree: look a dotted path up, set it
 * (creating maps on the way, as OmegaConf.update does) and merge maps with OmegaConf's rules.
 */

/** True for a plain map node (not a list, not null). */
export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Index of a list segment, or undefined when the segment is not a valid index. */
export function listIndex(list: unknown[], seg: string): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(seg)) return undefined;
  const i = Number(seg);
  return i < list.length ? i : undefined;
}

/** The child of a container under one path segment. */
export function child(node: unknown, seg: string): { found: boolean; value: unknown } {
  if (isMap(node)) return Object.hasOwn(node, seg) ? { found: true, value: node[seg] } : { found: false, value: undefined };
  if (Array.isArray(node)) {
    const i = listIndex(node, seg);
    return i === undefined ? { found: false, value: undefined } : { found: true, value: node[i] };
  }
  return { found: false, value: undefined };
}

/** Look a path up; `found` is false when any segment is absent or crosses a scalar. */
export function getAt(root: unknown, path: string[]): { found: boolean; value: unknown } {
  let node: unknown = root;
  for (const seg of path) {
    const c = child(node, seg);
    if (!c.found) return c;
    node = c.value;
  }
  return { found: true, value: node };
}

/** Deep copy of JSON-like data. */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepCopy(x);
    return out as T;
  }
  return v;
}

/** Merge `src` into the map `dst` in place: maps recurse, lists replace, `???` never clobbers. */
export function mergeInto(dst: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(src)) {
    const cur = dst[k];
    if (v === "???" && Object.hasOwn(dst, k)) continue;
    if (isMap(v) && isMap(cur)) mergeInto(cur, v);
    else dst[k] = deepCopy(v);
  }
}

/**
 * Write `value` at `path` like OmegaConf.update(merge=True): missing or scalar intermediates
 * become maps; a map value merges into an existing map; anything else replaces.
 */
export function updateAt(root: Record<string, unknown>, path: string[], value: unknown): void {
  let node: unknown = root;
  for (const seg of path.slice(0, -1)) {
    if (Array.isArray(node)) {
      const i = listIndex(node, seg);
      if (i === undefined) throw new RangeError(`list index '${seg}' is out of range`);
      if (!isMap(node[i]) && !Array.isArray(node[i])) node[i] = {};
      node = node[i];
    } else {
      const m = node as Record<string, unknown>;
      if (!isMap(m[seg]) && !Array.isArray(m[seg])) m[seg] = {};
      node = m[seg];
    }
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) {
    const i = listIndex(node, last);
    if (i === undefined) throw new RangeError(`list index '${last}' is out of range`);
    if (isMap(value) && isMap(node[i])) mergeInto(node[i] as Record<string, unknown>, value);
    else node[i] = deepCopy(value);
    return;
  }
  const m = node as Record<string, unknown>;
  if (isMap(value) && isMap(m[last])) mergeInto(m[last] as Record<string, unknown>, value);
  else m[last] = deepCopy(value);
}

/** Remove the entry at `path` (the caller has checked that it exists). */
export function deleteAt(root: Record<string, unknown>, path: string[]): void {
  const parent = getAt(root, path.slice(0, -1)).value;
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const i = listIndex(parent, last);
    if (i !== undefined) parent.splice(i, 1);
  } else if (isMap(parent)) delete parent[last];
}

/** Structural equality of JSON-like values (map key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
