/** Builds the `gym list <kind> [NAME]` commands on top of the catalog (spec cli-config §2.4). */
import { UsageError } from "../errors.ts";
import { findCatalogEntry, KIND_NOUN, listCatalog, type CatalogEntry, type CatalogKind } from "../config/catalog.ts";
import { EXTERNAL_ROOT, externalRow, externalRows } from "../config/external-rows.ts";
import { log } from "../log.ts";
import { defineGymCommand, type GymArgDef, type GymCommand, type GymContext } from "./_command.ts";
import { catalogFlags, catalogOverrides, commandRoots, entryJson, pluralNoun, printOut, renderEntry, renderTable } from "./list-catalog.ts";

/** What distinguishes one `gym list` sub-command from another. */
export interface ListSpec {
  command: string;
  description: string;
  /** Kinds listed by default (the environment catalog holds environments and benchmarks). */
  kinds: CatalogKind[];
  /** Extra flags (filters) of this command. */
  args?: Record<string, GymArgDef>;
  examples?: string[];
  /** Extra fields per row (JSON keys, and table columns by `columns`), computed after filtering. */
  details?: (rows: CatalogEntry[], roots: string[]) => Promise<Record<string, unknown>[]>;
  /** Table columns of the `details` fields: [header, key]. */
  columns?: [string, string][];
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
}

/** The manifest status of a row: its manifest's, `no-manifest` for other bundles, null where it does not apply. */
export function statusOf(e: CatalogEntry): string | null {
  return e.manifest?.status ?? (e.kind === "environment" || e.kind === "benchmark" ? "no-manifest" : null);
}

/**
 * Apply the `gym list environments` filters (upstream list_environments): domain and kind as always;
 * status, lifecycle, modality and licensing from the manifest. Rows without the metadata cannot
 * match; how many there were is said on stderr, as upstream does.
 */
function filterRows(rows: CatalogEntry[], opts: Record<string, unknown>): CatalogEntry[] {
  let out = rows;
  const domain = str(opts.domain)?.toLowerCase();
  if (domain) out = out.filter((e) => e.domain?.toLowerCase() === domain);
  const fields: [string, (e: CatalogEntry) => string | null, (have: string, want: string) => boolean][] = [
    ["status", statusOf, (h, w) => h === w],
    ["lifecycle", (e) => e.manifest?.lifecycle ?? null, (h, w) => h === w],
    ["modality", (e) => e.manifest?.modality ?? null, (h, w) => h === w],
    // Legacy rows carry their datasets' licenses; a substring match keeps `--licensing "CC BY"` useful there.
    ["licensing", (e) => e.manifest?.licensing ?? e.license, (h, w) => h.toLowerCase().includes(w.toLowerCase())],
  ];
  for (const [field, value, match] of fields) {
    const want = str(opts[field]);
    if (want === undefined) continue;
    const missing = out.filter((e) => value(e) === null).length;
    if (missing) log.warn(`${missing} catalog ${missing === 1 ? "entry has" : "entries have"} no ${field} metadata and could not be matched.`);
    out = out.filter((e) => {
      const v = value(e);
      return v !== null && match(v, want);
    });
  }
  return out;
}

/** Make the `gym list <command>` command for a spec. */
export function listCommand(spec: ListSpec): GymCommand {
  return defineGymCommand({
    meta: { name: spec.command, description: spec.description },
    args: {
      name: { type: "positional", required: false, description: "Inspect this entry instead of listing all" },
      ...spec.args,
      builtin: { type: "boolean", description: "Only what gym builds in (hide upstream components that run as external servers)" },
      ...catalogFlags,
    },
    examples: spec.examples,
    async run(ctx: GymContext) {
      const ov = catalogOverrides(ctx.data.overrides);
      const json = ctx.args.json === true || ov.json === true;
      let kinds = spec.kinds;
      const kindSel = str(ctx.args.kind) ?? (spec.kinds.length > 1 ? str(ov.catalog_kind) : undefined);
      if (kindSel !== undefined) {
        if (!spec.kinds.includes(kindSel as CatalogKind)) {
          throw new UsageError(`Unknown catalog kind '${kindSel}'.`, { hint: `use one of: ${spec.kinds.join(", ")}` });
        }
        kinds = [kindSel as CatalogKind];
      }
      const { roots, embedded } = await commandRoots(ctx.args);
      const name = str(ctx.args.name) ?? str(ov.component_name);
      if (name !== undefined) {
        const noun = spec.kinds.length > 1 && kinds.length > 1 ? "environment" : KIND_NOUN[kinds[0]!];
        let entry: CatalogEntry;
        try {
          entry = findCatalogEntry(name, kinds, roots, noun);
        } catch (e) {
          // Not built in, but upstream ships it: inspect its external row (with the recipe).
          const ext = externalRow(kinds, name);
          if (!ext) throw e;
          entry = ext;
        }
        const extra = spec.details && entry.root !== EXTERNAL_ROOT ? (await spec.details([entry], roots))[0] : undefined;
        printOut(json ? JSON.stringify({ ...entryJson(entry), ...extra }, null, 2) : renderEntry(entry, embedded, extra));
        return 0;
      }
      const filters = { ...ov, ...Object.fromEntries(Object.entries(ctx.args).filter(([, v]) => v !== undefined)) };
      const builtIn = filterRows(listCatalog(kinds, roots), filters);
      // Upstream components gym does not build in follow, marked external (the whole library is listed).
      const external = ctx.args.builtin === true ? [] : filterRows(externalRows(kinds, listCatalog(kinds, roots)), filters);
      const rows = [...builtIn, ...external];
      const builtInExtra = spec.details ? await spec.details(builtIn, roots) : undefined;
      const extra = builtInExtra ? [...builtInExtra, ...external.map(() => ({}))] : undefined;
      if (json) printOut(JSON.stringify(rows.map((r, i) => ({ ...entryJson(r), ...extra?.[i] })), null, 2));
      else printOut(rows.length === 0 ? `No ${pluralNoun(kinds)} found.` : renderTable(rows, embedded, extra && spec.columns ? { values: extra, columns: spec.columns } : undefined));
      return 0;
    },
  });
}
