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
});
