/** `gym list benchmarks [NAME]`: list benchmarks, or inspect one. */
import { listCommand } from "./list-command.ts";

/** The `gym list benchmarks` command. */
export default listCommand({
  command: "list benchmarks",
  description: "List benchmarks (name, server, repeats, rows, source, prepared locally?), or inspect one",
  kinds: ["benchmark"],
  examples: ["gym list benchmarks", "gym list benchmarks gsm8k --json", "gym list benchmarks --search-dir ./my_plugins"],
  columns: [
    ["SERVER", "server"],
    ["STATUS", "server_status"],
    ["PREPARED", "prepared_locally"],
    ["ROWS", "rows"],
    ["SOURCE", "source"],
  ],
  async details(rows, roots) {
    // The CLI wires the registries: built-in components (servers) and built-in preparers.
    const [{ isBuiltin }, { benchmarkInfo }] = await Promise.all([import("../components/registry.ts"), import("../benchmarks/catalog-info.ts"), import("../components/index.ts"), import("../benchmarks/index.ts")]);
    return Promise.all(
      rows.map(async (r) => {
        const info = await benchmarkInfo(r, roots, (impl) => isBuiltin("resources_servers", impl));
        return { ...info, prepared_locally: info.prepared !== null ? "yes" : "no" };
      }),
    );
  },
});
