/** `gym list models [NAME]`: list model types (the --model-type values), or inspect one. */
import { listCommand } from "./list-command.ts";

/** The `gym list models` command. */
export default listCommand({
  command: "list models",
  description: "List model types (the --model-type values), or inspect one",
  kinds: ["model"],
  examples: ["gym list models", "gym list models openai_model --json"],
});
