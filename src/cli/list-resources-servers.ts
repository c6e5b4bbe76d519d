/** `gym list resources-servers [NAME]`: list resources servers (the --resources-server values), or inspect one. */
import { listCommand } from "./list-command.ts";

/** The `gym list resources-servers` command. */
export default listCommand({
  command: "list resources-servers",
  description: "List resources servers (the --resources-server values), or inspect one",
  kinds: ["resources_server"],
  examples: ["gym list resources-servers", "gym list resources-servers example_single_tool_call --json"],
});
