/**
 * Shapes that leave config/: the merged config dict and the server instances found in it.
 * Everything downstream (runtime, rollout, dataset) takes these, never YAML or argv.
 */

/** A merged config: plain JSON-like data, interpolations (`${…}`) still unresolved (D3). */
export type ConfigDict = Record<string, unknown>;

/** The four server type keys (cli-config §6.1; `environment_servers` per D1). */
export const SERVER_TYPES = ["responses_api_models", "resources_servers", "responses_api_agents", "environment_servers"] as const;
/** One of the server type keys. */
export type ServerType = (typeof SERVER_TYPES)[number];

/** One validated server instance of the merged config. */
export interface ServerInstance {
  /** Top-level key; NEMO_GYM_CONFIG_PATH of its process. */
  name: string;
  /** Server type key. */
  serverType: ServerType;
  /** Implementation key (directory name under the server type). */
  implementation: string;
  /** The leaf map (`dict[name][serverType][implementation]`), interpolations unresolved. */
  leaf: Record<string, unknown>;
  /** Absolute path of `<root>/<serverType>/<implementation>` when it exists in a root. */
  dir: string | undefined;
  /** True for the `legacy_agent` environment servers generated for agents without one (D1). */
  generated: boolean;
}

/** Result of the config pipeline. */
export interface ResolvedConfig {
  /** Merged config with defaults applied; interpolations unresolved. */
  dict: ConfigDict;
  /** Validated server instances plus generated environment servers, in config order. */
  servers: ServerInstance[];
  /** Search roots in lookup order (the embedded root last). */
  roots: string[];
  /** Where the value at a key path came from (`file:line:col`, D12), when it came from a file. */
  locate?: (path: string[]) => { file: string; line?: number; col?: number } | undefined;
}
