/**
 * No-model mode and dummy-model folding (cli-config §4.8): commands that need no live model
 * pass placeholder policy values and a `dummy_model` server; a real model implementation in the
 * same block wins, with the dummy's fields merged under it.
 */
import { isPlainMap, mergeDicts } from "./merge.ts";
import type { ConfigDict } from "./types.ts";

/** The initial dict of no-model mode (merged at CLI priority, under the CLI overrides). */
export function noModelInitialDict(): ConfigDict {
  return {
    policy_base_url: "",
    policy_api_key: "",
    policy_model_name: "",
    policy_model: { responses_api_models: { dummy_model: { entrypoint: "app.py" } } },
  };
}

/** Fold `dummy_model` into the first real implementation of every top-level model block. */
export function foldDummyModels(dict: ConfigDict): void {
  for (const value of Object.values(dict)) {
    if (!isPlainMap(value)) continue;
    const models = value.responses_api_models;
    if (!isPlainMap(models) || !("dummy_model" in models) || Object.keys(models).length < 2) continue;
    const dummy = models.dummy_model;
    delete models.dummy_model;
    const first = Object.keys(models)[0]!;
    const real = models[first];
    if (isPlainMap(dummy) && isPlainMap(real)) models[first] = mergeDicts(dummy, real);
  }
}
