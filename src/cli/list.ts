/** The `gym list` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym list`: List available components (benchmarks, environments, agents, models, resources-servers). */
export default defineGymCommand({
  meta: { name: "list", description: "List available components (benchmarks, environments, agents, models, resources-servers)." },
  subCommands: {
    "benchmarks": async () => (await import("./list-benchmarks.ts")).default,
    "environments": async () => (await import("./list-environments.ts")).default,
    "agents": async () => (await import("./list-agents.ts")).default,
    "models": async () => (await import("./list-models.ts")).default,
    "resources-servers": async () => (await import("./list-resources-servers.ts")).default,
  },
  // Shown by `gym list --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    benchmarks: { description: "List benchmarks (name, server, repeats, rows, source, prepared locally?), or inspect one" },
    environments: { description: "List the environment catalog (environments, benchmarks, environment servers), or inspect one entry" },
    agents: { description: "List agents (the --agent-type values), or inspect one" },
    models: { description: "List model types (the --model-type values), or inspect one" },
    "resources-servers": { description: "List resources servers (the --resources-server values), or inspect one" },
  },
});
