/** `gym list agents [NAME]`: list agents (the --agent-type values), or inspect one. */
import { listCommand } from "./list-command.ts";

/** The `gym list agents` command. */
export default listCommand({
  command: "list agents",
  description: "List agents (the --agent-type values), or inspect one",
  kinds: ["agent"],
  examples: ["gym list agents", "gym list agents simple_agent --json"],
});
