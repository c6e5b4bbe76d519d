/** `gym search [TYPE] QUERY`: search the component catalog by name, domain or description. */
import { UsageError } from "../errors.ts";
import { searchCatalog, type CatalogKind } from "../config/catalog.ts";
import { closestMatch } from "../util/similar.ts";
import { defineGymCommand } from "./_command.ts";
import { catalogFlags, catalogOverrides, commandRoots, entryJson, pluralNoun, printOut, renderTable } from "./list-catalog.ts";

// TYPE values (spec §2.4); no TYPE searches the environment catalog (environments and benchmarks).
const TYPES: Record<string, CatalogKind[]> = {
  benchmarks: ["benchmark"],
  environments: ["environment"],
  agents: ["agent"],
  models: ["model"],
  "resources-servers": ["resources_server"],
};
const DEFAULT_KINDS: CatalogKind[] = ["environment", "benchmark"];

/** The `gym search` command. */
export default defineGymCommand({
  meta: { name: "search", description: "Search components by name, domain or description (substring or close match)" },
  args: {
    type: { type: "positional", required: false, description: `What to search: ${Object.keys(TYPES).join(", ")} (default: the environment catalog)` },
    query: { type: "positional", required: false, description: "Text to look for" },
    ...catalogFlags,
  },
  examples: ["gym search resources-servers tool", "gym search agents simple --json", "gym search models openai"],
  async run(ctx) {
    const ov = catalogOverrides(ctx.data.overrides);
    const json = ctx.args.json === true || ov.json === true;
    let type = typeof ctx.args.type === "string" ? ctx.args.type : undefined;
    let query = typeof ctx.args.query === "string" ? ctx.args.query : undefined;
    // A single positional is the QUERY.
    if (query === undefined && type !== undefined) {
      query = type;
      type = undefined;
    }
    if (query === undefined && ov.query !== undefined && ov.query !== null) query = String(ov.query);
    if (query === undefined || query.trim() === "") {
      throw new UsageError("gym search: error: the following arguments are required: QUERY", { hint: "e.g. `gym search resources-servers tool` or `gym search models openai`" });
    }
    let kinds = DEFAULT_KINDS;
    if (type !== undefined) {
      const k = TYPES[type];
      if (!k) {
        const near = closestMatch(type, Object.keys(TYPES));
        throw new UsageError(`gym search: error: argument TYPE: invalid choice: '${type}' (choose from ${Object.keys(TYPES).map((t) => `'${t}'`).join(", ")})`, {
          hint: near ? `Did you mean \`${near}\`?` : undefined,
        });
      }
      kinds = k;
    } else if (ov.catalog_kind === "benchmark" || ov.catalog_kind === "environment") kinds = [ov.catalog_kind];
    const { roots, embedded } = await commandRoots(ctx.args);
    const rows = searchCatalog(query, kinds, roots);
    if (json) printOut(JSON.stringify(rows.map(entryJson), null, 2));
    else printOut(rows.length === 0 ? `No ${pluralNoun(kinds)} match '${query}'.` : renderTable(rows, embedded));
    return 0;
  },
});
