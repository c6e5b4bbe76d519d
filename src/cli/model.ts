/** The `gym model` command group. */
import { defineGymCommand } from "./_command.ts";

/** `gym model`: Serve a built-in model standalone. */
export default defineGymCommand({
  meta: { name: "model", description: "Serve a built-in model standalone." },
  subCommands: {
    "serve": async () => (await import("./model-serve.ts")).default,
  },
  // Shown by `gym model --help` without importing the modules above; test/cli/router.test.ts checks they match.
  subCommandMeta: {
    serve: { description: "Serve a built-in model as an OpenAI-compatible endpoint" },
  },
});
