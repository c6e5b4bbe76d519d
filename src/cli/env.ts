/** The `gym env` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym env`: Develop and run environments. */
export default defineGymCommand({
  meta: { name: "env", description: "Develop and run environments." },
  subCommands: {
    "start": async () => (await import("./env-start.ts")).default,
    "prefetch": async () => (await import("./env-prefetch.ts")).default,
    "resolve": async () => (await import("./env-resolve.ts")).default,
    "validate": async () => (await import("./env-validate.ts")).default,
    "test": async () => (await import("./env-test.ts")).default,
    "init": async () => (await import("./env-init.ts")).default,
    "packages": async () => (await import("./env-packages.ts")).default,
    "publish": async () => (await import("./env-publish.ts")).default,
    "status": async () => (await import("./env-status.ts")).default,
  },
  // Shown by `gym env --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    start: { description: "Start the head server and every server of a config" },
    prefetch: { description: "Check that every server of a config can be launched, starting nothing" },
    resolve: { description: "Print the merged config (interpolations resolved, secrets masked)" },
    validate: { description: "Validate a config (no model needed) or a manifest" },
    test: { description: "Test resources servers: data checks, unit tests, example rows end to end" },
    init: { description: "Scaffold a resources server, environment or benchmark" },
    packages: { description: "List the Python packages of an external server's venv" },
    publish: { description: "Run the publication checks of a manifest-backed workload" },
    status: { description: "Show the servers of a running environment" },
  },
});
