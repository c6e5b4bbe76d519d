/**
 * Config dict ↔ YAML text for hand-off (D3) and printing. Output quotes every string a YAML 1.1
 * reader (PyYAML/OmegaConf in an upstream server) would otherwise retype, and writes lists the
 * way PyYAML does (no extra indent under their key).
 */
import { stringify } from "yaml";
import { parseConfigText } from "./load.ts";
import type { ConfigDict } from "./types.ts";

/** YAML text of a config dict; interpolations are written as-is. */
export function serializeConfigDict(dict: ConfigDict): string {
  return stringify(dict, { version: "1.1", indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}

/** Parse YAML text produced by `serializeConfigDict` (or upstream's dump). */
export function parseConfigDict(text: string, source = "NEMO_GYM_CONFIG_DICT"): ConfigDict {
  return parseConfigText(text, source).dict;
}
