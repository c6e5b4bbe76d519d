/**
 * OmegaConf merge semantics (cli-config §4.1): maps merge key by key keeping the earlier key
 * order, a later list replaces the earlier one, a later `???` never clobbers a concrete value,
 * a later null does, and interpolation strings merge as raw text. Locations travel with values.
 */
import type { Layer } from "./load.ts";
import type { ConfigDict } from "./types.ts";
import { childLoc, cloneLoc, peekChildLoc, setChildLoc, type LocNode } from "./yaml-locations.ts";

/** The OmegaConf "missing" marker. */
export const MISSING = "???";

/** A plain (non-list) object. */
export function isPlainMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep copy of JSON-like config data. */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (isPlainMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepCopy(x);
    return out as T;
  }
  return v;
}

function mergeMaps(dst: Record<string, unknown>, dstLoc: LocNode | undefined, src: Record<string, unknown>, srcLoc: LocNode | undefined, adopt: boolean): void {
  for (const key of Object.keys(src)) {
    const sv = src[key];
    // The source tree is only read: a synthesised location is not cached in it.
    const childSrcLoc = peekChildLoc(srcLoc, key);
    const has = Object.hasOwn(dst, key);
    const dv = has ? dst[key] : undefined;
    if (sv === MISSING && has && dv !== MISSING) continue;
    if (has && isPlainMap(dv) && isPlainMap(sv)) {
      let childDstLoc = childLoc(dstLoc, key);
      if (dstLoc && !childDstLoc) {
        childDstLoc = {};
        setChildLoc(dstLoc, key, childDstLoc);
      }
      mergeMaps(dv, childDstLoc, sv, childSrcLoc, adopt);
      continue;
    }
    dst[key] = adopt ? sv : deepCopy(sv);
    setChildLoc(dstLoc, key, adopt ? childSrcLoc : cloneLoc(childSrcLoc));
  }
}

/**
 * Merge `over` into `base` in place (base is the lower-priority layer). With `adopt`, values and
 * locations of `over` move into `base` uncopied: only for a layer that is used once and dropped.
 */
export function mergeInto(base: Layer, over: Layer, opts: { adopt?: boolean } = {}): void {
  mergeMaps(base.dict, base.locs, over.dict, over.locs, opts.adopt === true);
}

/** Merge plain dicts (no locations) into a new dict; later arguments win. */
export function mergeDicts(...dicts: ConfigDict[]): ConfigDict {
  const out: ConfigDict = {};
  for (const d of dicts) mergeMaps(out, undefined, d, undefined, false);
  return out;
}

/** A fresh empty layer. */
export function emptyLayer(): Layer {
  return { dict: {}, locs: { children: new Map() } };
}
