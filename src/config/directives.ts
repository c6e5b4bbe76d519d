/**
 * Gym's config directives (cli-config §4.6): `${inherit_from:p}` / `{_inherit_from: p, …}` move a
 * subtree (the source is removed afterwards), `${copy:p}` / `{_copy: p, …}` copy it, and
 * `_delete_key: "a, b"` removes keys. Sources are read from a snapshot taken before the pass;
 * nested maps are handled before the map that holds them.
 */
import { ConfigError } from "../errors.ts";
import type { Layer } from "./load.ts";
import { deepCopy, isPlainMap, mergeInto, MISSING } from "./merge.ts";
import type { ConfigDict } from "./types.ts";
import { childLoc, cloneLoc, locAt, locationOf, setChildLoc, type LocNode } from "./yaml-locations.ts";

const STRING_FORM = /^\$\{(inherit_from|copy):\s*([^}]+?)\s*\}$/;

function pyList(segs: string[]): string {
  return `[${segs.map((s) => `'${s}'`).join(", ")}]`;
}

interface Pass {
  live: Layer;
  snapshot: ConfigDict;
  snapLocs: LocNode | undefined;
}

/** The value at `segs` in the snapshot: MISSING when it or an ancestor is `???`, undefined when absent. */
function sourceValue(pass: Pass, segs: string[]): { found: boolean; value: unknown } {
  let cur: unknown = pass.snapshot;
  for (const s of segs) {
    if (cur === MISSING) return { found: true, value: MISSING };
    if (!isPlainMap(cur) || !Object.hasOwn(cur, s)) return { found: false, value: undefined };
    cur = cur[s];
  }
  return { found: true, value: cur };
}

function removeLive(pass: Pass, segs: string[]): void {
  let cur: unknown = pass.live.dict;
  let loc: LocNode | undefined = pass.live.locs;
  for (const s of segs.slice(0, -1)) {
    if (!isPlainMap(cur)) return;
    cur = cur[s];
    loc = childLoc(loc, s);
  }
  const last = segs[segs.length - 1]!;
  if (isPlainMap(cur)) delete cur[last];
  setChildLoc(loc, last, undefined);
}

/** A fresh copy of a directive source (value and locations), `???` when the source is unset. */
function takeSource(pass: Pass, srcPath: string, at: string[]): { value: unknown; loc: LocNode | undefined } {
  const segs = srcPath.split(".").filter((s) => s !== "");
  const { found, value } = sourceValue(pass, segs);
  if (!found) {
    throw new ConfigError(`Path specified does not exist in config: ${pyList(segs)}`, {
      key: at.join("."),
      location: locationOf(pass.live.locs, at),
      code: "E_INHERIT_PATH_NOT_FOUND",
      hint: `'${at.join(".")}' inherits from '${srcPath}'; define that key (check the spelling and that the config defining it is in config_paths)`,
    });
  }
  if (value === MISSING) return { value: MISSING, loc: undefined };
  return { value: deepCopy(value), loc: cloneLoc(locAt(pass.snapLocs, segs)) };
}

function deleteList(raw: unknown, at: string[], pass: Pass): string[] {
  if (typeof raw !== "string") {
    throw new ConfigError(`_delete_key must be a comma-separated string of keys, got ${JSON.stringify(raw)}`, {
      key: [...at, "_delete_key"].join("."),
      location: locationOf(pass.live.locs, [...at, "_delete_key"]),
    });
  }
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Process one map (children first) and return its replacement value and locations. */
function processMap(pass: Pass, map: Record<string, unknown>, loc: LocNode | undefined, at: string[]): { value: unknown; loc: LocNode | undefined } {
  for (const key of Object.keys(map)) {
    if (!Object.hasOwn(map, key)) continue;
    const v = map[key];
    const childAt = [...at, key];
    if (isPlainMap(v)) {
      const r = processMap(pass, v, childLoc(loc, key), childAt);
      map[key] = r.value;
      setChildLoc(loc, key, r.loc);
    } else if (typeof v === "string") {
      const m = STRING_FORM.exec(v);
      if (!m) continue;
      const src = takeSource(pass, m[2]!, childAt);
      map[key] = src.value;
      setChildLoc(loc, key, src.loc);
      if (m[1] === "inherit_from") removeLive(pass, m[2]!.split("."));
    }
  }
  if (at.length === 0) return { value: map, loc };
  const inherit = map._inherit_from;
  const copy = map._copy;
  const hasDelete = Object.hasOwn(map, "_delete_key");
  if (inherit === undefined && copy === undefined && !hasDelete) return { value: map, loc };
  const toDelete = hasDelete ? deleteList(map._delete_key, at, pass) : [];
  const pending = new Set<string>();
  for (const k of toDelete) {
    if (Object.hasOwn(map, k)) {
      delete map[k];
      setChildLoc(loc, k, undefined);
    } else pending.add(k);
  }
  delete map._delete_key;
  setChildLoc(loc, "_delete_key", undefined);
  const srcPath = typeof inherit === "string" ? inherit : typeof copy === "string" ? copy : undefined;
  if ((inherit !== undefined || copy !== undefined) && srcPath === undefined) {
    throw new ConfigError(`${inherit !== undefined ? "_inherit_from" : "_copy"} must be a dotted key path string`, {
      key: at.join("."),
      location: locationOf(pass.live.locs, at),
    });
  }
  delete map._inherit_from;
  delete map._copy;
  setChildLoc(loc, "_inherit_from", undefined);
  setChildLoc(loc, "_copy", undefined);
  let result: { value: unknown; loc: LocNode | undefined } = { value: map, loc };
  if (srcPath !== undefined) {
    const src = takeSource(pass, srcPath, at);
    if (src.value === MISSING) {
      result = { value: MISSING, loc };
    } else {
      if (!isPlainMap(src.value)) {
        throw new ConfigError(`'${at.join(".")}' inherits from '${srcPath}', which is not a map; use the \`\${inherit_from:${srcPath}}\` string form for a single value`, {
          key: at.join("."),
          location: locationOf(pass.live.locs, at),
        });
      }
      const base: Layer = { dict: src.value, locs: src.loc ?? { children: new Map() } };
      mergeInto(base, { dict: map, locs: loc ?? { children: new Map() } });
      result = { value: base.dict, loc: base.locs };
    }
    if (inherit !== undefined) removeLive(pass, srcPath.split("."));
  }
  if (pending.size > 0 && isPlainMap(result.value)) {
    for (const k of pending) {
      if (!Object.hasOwn(result.value, k)) {
        throw new ConfigError(`_delete_key names '${k}', which does not exist in '${at.join(".")}'`, {
          key: at.join("."),
          location: locationOf(pass.live.locs, at),
          hint: `remove '${k}' from _delete_key or check its spelling`,
        });
      }
      delete result.value[k];
      setChildLoc(result.loc, k, undefined);
    }
  }
  return result;
}

/** True when `map` or a map under it holds a directive (the root's own `_inherit_from` etc. are plain keys). */
function hasDirectives(map: Record<string, unknown>, root: boolean): boolean {
  if (!root && (Object.hasOwn(map, "_inherit_from") || Object.hasOwn(map, "_copy") || Object.hasOwn(map, "_delete_key"))) return true;
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (isPlainMap(v) ? hasDirectives(v, false) : typeof v === "string" && STRING_FORM.test(v)) return true;
  }
  return false;
}

/** Apply `_inherit_from` / `_copy` / `_delete_key` and their `${…}` string forms in place. */
export function applyDirectives(layer: Layer): void {
  // Most configs have none: skip the snapshot copy and the location-tracking walk.
  if (!hasDirectives(layer.dict, true)) return;
  const pass: Pass = { live: layer, snapshot: deepCopy(layer.dict), snapLocs: cloneLoc(layer.locs) };
  // The root map is never replaced (a top-level `_inherit_from` is a reserved key, not a directive).
  processMap(pass, layer.dict, layer.locs, []);
}
