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
});
