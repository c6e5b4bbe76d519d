/**
 * The plain value lists behind the server and dataset schemas (cli-config §6.4, §6.6, D2), apart
 * from the TypeBox schemas so that the common path (hand checks in servers.ts) does not load
 * TypeBox at all.
 */

/** Domain values (§6.4; seed and code agree). */
export const DOMAINS = ["math", "coding", "agent", "knowledge", "instruction_following", "long_context", "safety", "games", "translation", "e2e", "rlhf", "other"] as const;

/** License values: the code's superset of the seed's list (D2). */
export const LICENSES = [
  "Apache 2.0",
  "MIT",
  "Creative Commons Attribution 4.0 International",
  "Creative Commons Attribution-ShareAlike 4.0 International",
  "CC BY-SA 4.0",
  "CC BY-NC 3.0",
  "TBD",
  "NVIDIA Internal Use Only, Do Not Distribute",
  "NVIDIA Evaluation Dataset License Agreement",
  "GNU General Public License v3.0",
] as const;

/**
 * SPDX identifiers of the licenses above. Upstream accepts only its own spellings, yet ships a config
 * (spartqa) that writes `CC-BY-SA-4.0`; gym reads these ids as the license they name, with a warning,
 * so an upstream config that upstream itself would reject still starts (decided for issue 17).
 */
export const LICENSE_SPDX_ALIASES: Readonly<Record<string, (typeof LICENSES)[number]>> = {
  "Apache-2.0": "Apache 2.0",
  "CC-BY-4.0": "Creative Commons Attribution 4.0 International",
  "CC-BY-SA-4.0": "CC BY-SA 4.0",
  "CC-BY-NC-3.0": "CC BY-NC 3.0",
  "GPL-3.0": "GNU General Public License v3.0",
  "GPL-3.0-only": "GNU General Public License v3.0",
};

/** Dataset types: the seed's three plus `benchmark` (D2). */
export const DATASET_TYPES = ["example", "train", "validation", "benchmark"] as const;

/** Display names of the instance models, as upstream's validation errors name them. */
export const INSTANCE_CLASS: Record<string, string> = {
  responses_api_models: "ResponsesAPIModelServerInstanceConfig",
  resources_servers: "ResourcesServerInstanceConfig",
  responses_api_agents: "ResponsesAPIAgentServerInstanceConfig",
  environment_servers: "EnvironmentServerInstanceConfig",
};
