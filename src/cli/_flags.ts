/**
 * Flag definitions shared by several commands, and their translation to override tokens
 * (spec cli-config §2.3). Selector flags are kept apart: config/ resolves them to paths.
 */
import type { SelectorArgs } from "../config/selectors.ts";
import type { GymArgDef, ParsedFlags } from "./_command.ts";

/** `--search-dir` (D5: it replaces NEMO_GYM_EXTRA_ROOTS, so the help says so). */
export const searchDirFlag: GymArgDef = { type: "string", repeatable: true, valueHint: "dir", description: "Extra search root (repeatable); when given, NEMO_GYM_EXTRA_ROOTS is ignored (D5)" };

/** `--config/--benchmark/--environment/--resources-server/--model-type/--agent-type/--search-dir`. */
export const selectorFlags: Record<string, GymArgDef> = {
  config: { type: "string", repeatable: true, valueHint: "path", description: "Config YAML to load (repeatable; later files win)" },
  benchmark: { type: "string", valueHint: "name", description: "Load benchmarks/<name>/config.yaml" },
  environment: { type: "string", valueHint: "name", description: "Load environments/<name>/config.yaml" },
  "resources-server": { type: "string", valueHint: "name", description: "Load resources_servers/<name>/configs/<name>.yaml" },
  "model-type": { type: "string", valueHint: "name", description: "Load responses_api_models/<name>/configs/<name>.yaml" },
  "agent-type": { type: "string", valueHint: "name", description: "Swap the agent of the loaded environment (D7)" },
  "search-dir": searchDirFlag,
};

/** `-m/--model`, `--model-url`, `--model-api-key`. */
export const policyFlags: Record<string, GymArgDef> = {
  model: { type: "string", alias: "m", valueHint: "name", description: "Policy model name (+policy_model_name)" },
  "model-url": { type: "string", valueHint: "url", description: "Policy base URL (+policy_base_url)" },
  "model-api-key": { type: "string", valueHint: "key", description: "Policy API key (+policy_api_key); never printed" },
};

/** `--json`. */
export const jsonFlag: Record<string, GymArgDef> = {
  json: { type: "boolean", description: "Print machine-readable JSON on stdout" },
};

/** The selectors a command line named, before path resolution (the type lives in config/). */
export type { SelectorArgs };

function str(v: ParsedFlags[string]): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function list(v: ParsedFlags[string]): string[] {
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** Pull the selector flags out of parsed flags. */
export function selectorArgs(flags: ParsedFlags): SelectorArgs {
  return {
    configPaths: list(flags.config),
    benchmark: str(flags.benchmark),
    environment: str(flags.environment),
    resourcesServer: str(flags["resources-server"]),
    modelType: str(flags["model-type"]),
    agentType: str(flags["agent-type"]),
    searchDirs: list(flags["search-dir"]),
  };
}

/** How a value flag becomes an override: `+key=V` verbatim, or JSON-quoted. */
export interface FlagOverride {
  flag: string;
  key: string;
  quoted?: boolean;
}

/** Translate value/bool flags to `+key=value` tokens in the given order (spec §2.3). */
export function flagsToOverrides(flags: ParsedFlags, table: FlagOverride[]): string[] {
  const out: string[] = [];
  for (const { flag, key, quoted } of table) {
    const v = flags[flag];
    if (v === undefined || v === false) continue;
    if (v === true) out.push(`+${key}=true`);
    else if (typeof v === "string") out.push(`+${key}=${quoted ? JSON.stringify(v) : v}`);
  }
  return out;
}

/** Override table of the policy flags. */
export const policyOverrides: FlagOverride[] = [
  { flag: "model", key: "policy_model_name" },
  { flag: "model-url", key: "policy_base_url" },
  { flag: "model-api-key", key: "policy_api_key" },
];
