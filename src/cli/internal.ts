/** Hidden commands the binary runs in its own child processes (one per server, D13). */
import { defineGymCommand } from "./_command.ts";

/** `gym internal`: not for users; the supervisor re-spawns the binary with these. */
export default defineGymCommand({
  meta: { name: "internal", description: "Internal entry points of child processes", hidden: true },
  subCommands: {
    serve: async () => (await import("./internal-serve.ts")).default,
    "sql-runner": async () => (await import("./internal-sql-runner.ts")).default,
  },
  // Shown by `gym internal --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    serve: { description: "Run one server instance (child process entry)", hidden: true },
    "sql-runner": { description: "Run read-only SQLite queries for the SQL verifiers (child process entry)", hidden: true },
  },
});
