/** The `gym dev` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym dev`: Contributor helpers. */
export default defineGymCommand({
  meta: { name: "dev", description: "Contributor helpers." },
  subCommands: {
    "test": async () => (await import("./dev-test.ts")).default,
  },
  // Shown by `gym dev --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    test: { description: "Run gym's own test suite (bun test) from a source checkout" },
  },
});
