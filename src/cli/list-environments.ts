/** `gym list environments [NAME]`: the environment catalog (environments and benchmarks). */
import { listCommand } from "./list-command.ts";

/** The `gym list environments` command. */
export default listCommand({
  command: "list environments",
  description: "List the environment catalog (environments, benchmarks, environment servers), or inspect one entry",
  kinds: ["environment", "benchmark", "environment_server"],
  args: {
    domain: { type: "string", valueHint: "domain", description: "Only entries of this domain (math, coding, agent, …)" },
    kind: { type: "enum", options: ["environment", "benchmark", "environment_server"], description: "Only environments, benchmarks or environment servers" },
    modality: { type: "string", valueHint: "modality", description: "Only manifest entries of this modality (text, image, …)" },
    licensing: { type: "string", valueHint: "text", description: "Only entries whose licensing (manifest) or dataset license contains this text" },
    status: { type: "enum", options: ["experimental", "no-manifest"], description: "Only manifest entries (experimental) or legacy configs (no-manifest)" },
    lifecycle: { type: "enum", options: ["active", "deprecated"], description: "Only manifest entries in this lifecycle state" },
  },
  examples: ["gym list environments", "gym list environments --kind environment --json"],
});
