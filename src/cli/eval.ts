/** The `gym eval` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym eval`: Run evaluations. */
export default defineGymCommand({
  meta: { name: "eval", description: "Run evaluations." },
  subCommands: {
    "run": async () => (await import("./eval-run.ts")).default,
    "prepare": async () => (await import("./eval-prepare.ts")).default,
    "aggregate": async () => (await import("./eval-aggregate.ts")).default,
    "reverify": async () => (await import("./eval-reverify.ts")).default,
    "profile": async () => (await import("./eval-profile.ts")).default,
    "submit": async () => (await import("./eval-submit.ts")).default,
    "status": async () => (await import("./eval-status.ts")).default,
  },
});
