/** The `???` check (cli-config §4.7): every unset value is reported at once, with its file position. */
import { ConfigError, formatLocation } from "../errors.ts";
import type { Layer } from "./load.ts";
import { isPlainMap, MISSING } from "./merge.ts";
import { locationOf } from "./yaml-locations.ts";

/** Paths (dotted, lists as `key[i]`) of every `???` leaf, with the segment arrays. */
export function findMissing(value: unknown, prefix = "", segs: string[] = []): { path: string; segs: string[] }[] {
  if (value === MISSING) return [{ path: prefix, segs }];
  const out: { path: string; segs: string[] }[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.push(...findMissing(v, `${prefix}[${i}]`, [...segs, String(i)])));
  } else if (isPlainMap(value)) {
    for (const [k, v] of Object.entries(value)) out.push(...findMissing(v, prefix === "" ? k : `${prefix}.${k}`, [...segs, k]));
  }
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
