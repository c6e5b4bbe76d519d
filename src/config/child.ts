/**
 * What a child server process does with its hand-off (D3, runtime.md §2.2): the parent puts the
 * merged config, interpolations unresolved, in NEMO_GYM_CONFIG_DICT and the instance name in
 * NEMO_GYM_CONFIG_PATH. The child takes `cfg[name]` → first server type → first implementation,
 * resolves only that leaf (so `oc.env` reads the child's environment) and injects `name`.
 */
import { readEnv } from "../env.ts";
import { ConfigError } from "../errors.ts";
import { resolveAt } from "./interpolate.ts";
import { isPlainMap } from "./merge.ts";
import { parseConfigDict } from "./serialize.ts";
import { SERVER_TYPES, type ConfigDict, type ServerInstance, type ServerType } from "./types.ts";

export { serializeConfigDict } from "./serialize.ts";

/** A child's view of its own config. */
export interface ChildConfig {
  global: ConfigDict;
  leaf: Record<string, unknown>;
  serverType: ServerType;
  implementation: string;
}

/** An instance's leaf with interpolations resolved and `name` injected, as its process will see it (runtime.md §2.2). */
export function resolvedLeaf(dict: ConfigDict, instance: Pick<ServerInstance, "name" | "serverType" | "implementation">): Record<string, unknown> {
  const resolved = resolveAt(dict, [instance.name, instance.serverType, instance.implementation]);
  if (!isPlainMap(resolved)) throw new ConfigError(`'${instance.name}.${instance.serverType}.${instance.implementation}' is not a map`);
  return { ...resolved, name: instance.name };
}

/** Parse the hand-off YAML and pick out (and resolve) this instance's leaf. */
export function loadChildConfig(dictYaml: string, instanceName: string): ChildConfig {
  const global = parseConfigDict(dictYaml);
  const block = global[instanceName];
  if (!isPlainMap(block)) {
    throw new ConfigError(`NEMO_GYM_CONFIG_PATH names '${instanceName}', which is not a server block of NEMO_GYM_CONFIG_DICT`, {
      hint: `top-level keys are: ${Object.keys(global).join(", ")}`,
    });
  }
  const serverType = Object.keys(block)[0];
  if (serverType === undefined || !(SERVER_TYPES as readonly string[]).includes(serverType) || !isPlainMap(block[serverType])) {
    throw new ConfigError(`'${instanceName}' in NEMO_GYM_CONFIG_DICT is not a server block (its first key must be one of ${SERVER_TYPES.join(", ")})`);
  }
  const implementation = Object.keys(block[serverType] as object)[0];
  if (implementation === undefined) throw new ConfigError(`'${instanceName}.${serverType}' in NEMO_GYM_CONFIG_DICT has no implementation`);
  const resolved = resolveAt(global, [instanceName, serverType, implementation]);
  if (!isPlainMap(resolved)) throw new ConfigError(`'${instanceName}.${serverType}.${implementation}' in NEMO_GYM_CONFIG_DICT is not a map`);
  return { global, leaf: { ...resolved, name: instanceName }, serverType: serverType as ServerType, implementation };
}

/**
 * The merged config a parent handed down in NEMO_GYM_CONFIG_DICT, used as-is without parsing
 * or validation (cli-config §1 step 6, §4.10); undefined when the variable is not set.
 */
export function inheritedGlobalConfig(): { dict: ConfigDict; instanceName: string | undefined } | undefined {
  const env = readEnv();
  if (env.configDict === undefined || env.configDict === "") return undefined;
  return { dict: parseConfigDict(env.configDict), instanceName: env.configPath };
}
