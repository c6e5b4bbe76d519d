/** `gym list benchmarks [NAME]`: list benchmarks, or inspect one. */
import { listCommand } from "./list-command.ts";

/** The `gym list benchmarks` command. */
export default listCommand({
  command: "list benchmarks",
  description: "List benchmarks (name, domain, agent, repeats, description), or inspect one",
  kinds: ["benchmark"],
  examples: ["gym list benchmarks", "gym list benchmarks --json", "gym list benchmarks --search-dir ./my_plugins"],
});
