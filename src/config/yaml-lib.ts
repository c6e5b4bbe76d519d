/**
 * The `yaml` package, loaded on first use. Most config files take the Bun.YAML fast path and
 * positions are computed only for error messages, so a typical run never needs the package;
 * loading it eagerly cost a few milliseconds of every `gym env resolve` in the binary.
 */
import type * as Yaml from "yaml";

let lib: typeof Yaml | undefined;

/** The `yaml` module (required, and so evaluated, on the first call only). */
export function yamlLib(): typeof Yaml {
  // A `require` (not a static import) keeps the bundler from evaluating the package at startup.
  return (lib ??= require("yaml") as typeof Yaml);
}
