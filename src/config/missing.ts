/** The `???` check (cli-config §4.7): every unset value is reported at once, with its file position. */
import { ConfigError, formatLocation } from "../errors.ts";
import type { Layer } from "./load.ts";
import { isPlainMap, MISSING } from "./merge.ts";
import { locationOf } from "./yaml-locations.ts";

/** `prefix` extended by key segments (list indices as `[i]`); `listed[d]` says segment d is an index. */
function dottedPath(prefix: string, segs: string[], listed: boolean[]): string {
  let out = prefix;
  segs.forEach((seg, d) => (out = listed[d] ? `${out}[${seg}]` : out === "" ? seg : `${out}.${seg}`));
  return out;
}

/** Paths (dotted, lists as `key[i]`) of every `???` leaf, with the segment arrays. */
export function findMissing(value: unknown, prefix = "", segs: string[] = []): { path: string; segs: string[] }[] {
  // One walk with a shared segment stack: paths are built only for the (rare) `???` leaves, so
  // a large config costs no per-node string or array allocation.
  const out: { path: string; segs: string[] }[] = [];
  const stack = [...segs];
  const listed: boolean[] = segs.map(() => false);
  const leafPath = (): string => dottedPath(prefix, stack.slice(segs.length), listed.slice(segs.length));
  const walk = (v: unknown): void => {
    if (v === MISSING) {
      out.push({ path: leafPath(), segs: [...stack] });
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        stack.push(String(i));
        listed.push(true);
        walk(v[i]);
        stack.pop();
        listed.pop();
      }
    } else if (isPlainMap(v)) {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        stack.push(k);
        listed.push(false);
        walk(v[k]);
        stack.pop();
        listed.pop();
      }
    }
  };
  walk(value);
  return out;
}

/** Throw ConfigMissingValuesError when any `???` is left. */
export function checkMissing(layer: Layer): void {
  const missing = findMissing(layer.dict);
  if (missing.length === 0) return;
  const lines = missing.map(({ path, segs }) => {
    const loc = locationOf(layer.locs, segs);
    return `  - ${path}${loc ? ` (${formatLocation(loc)})` : ""}`;
  });
  const examples = missing.slice(0, 3).map(({ path }) => `  ++${path}=<value>`);
  throw new ConfigError(
    `${missing.length} required config value(s) are unset (still '???') after merging:\n${lines.join("\n")}\n\n` +
      "Provide each value via a CLI override, in env.yaml, or in a config you pass via config_paths.\n" +
      `For example, on the command line:\n${examples.join("\n")}`,
    { code: "E_CONFIG_MISSING_VALUES", key: missing[0]!.path },
  );
}
