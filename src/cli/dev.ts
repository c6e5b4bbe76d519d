/** The `gym dev` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym dev`: Contributor helpers. */
export default defineGymCommand({
  meta: { name: "dev", description: "Contributor helpers." },
  subCommands: {
    "test": async () => (await import("./dev-test.ts")).default,
  },
});
