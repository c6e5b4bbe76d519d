/**
 * `gym env publish NAME` (cli-config §2.4): the local publication checks of a manifest-backed
 * workload (devtools/manifest-publish.ts): validation, the verifier fixture, no scaffold
 * placeholders, and the catalog resolving NAME to exactly this manifest as `experimental`.
 */
import { searchRoots } from "../config/roots.ts";
import { UsageError } from "../errors.ts";
import { publishWorkload } from "../devtools/manifest-publish.ts";
import { manifestPathOf, resolveCatalogEntry } from "../devtools/manifest-workload.ts";
import { defineGymCommand } from "./_command.ts";
import { jsonFlag, searchDirFlag } from "./_flags.ts";
import { verifierDeps } from "./env-test.ts";

/** The keys a publication check accepts (upstream _MANIFEST_PUBLISH_KEYS). */
const PUBLISH_KEYS = new Set(["onboarding_name", "catalog_kind", "json", "verbose"]);

/** The `gym env publish` command. */
export default defineGymCommand({
  meta: { name: "publish", description: "Run the publication checks of a manifest-backed workload" },
  args: {
    name: { type: "positional", required: false, description: "Catalog name of the workload (environments/<name> or benchmarks/<name>)" },
    kind: { type: "enum", options: ["environment", "benchmark"], description: "Catalog kind of NAME (when both kinds have it)" },
    ...jsonFlag,
    "search-dir": searchDirFlag,
  },
  examples: ["gym env publish my_env --search-dir ./plugins", "gym env publish my_benchmark --kind benchmark --json"],
  async run(ctx) {
    const keys: Record<string, string> = {};
    for (const t of ctx.data.overrides) {
      const eq = t.indexOf("=");
      keys[t.slice(0, eq < 0 ? undefined : eq).replace(/^[+~]+/, "")] = eq < 0 ? "" : t.slice(eq + 1).replace(/^"(.*)"$/, "$1");
    }
    const extra = Object.keys(keys).filter((k) => !PUBLISH_KEYS.has(k));
    if (extra.length) throw new UsageError(`Manifest-backed commands do not accept runtime config overrides: ${extra.join(", ")}`);
    const name = typeof ctx.args.name === "string" ? ctx.args.name : keys.onboarding_name;
    if (!name) throw new UsageError("gym env publish requires a catalog name", { hint: "e.g. `gym env publish my_env`" });
    const dirs = ctx.args["search-dir"];
    const searchDirs = Array.isArray(dirs) ? dirs : typeof dirs === "string" ? [dirs] : [];
    const roots = await searchRoots({ searchDirs });
    const entry = resolveCatalogEntry(name, typeof ctx.args.kind === "string" ? ctx.args.kind : keys.catalog_kind, roots);
    if (!entry.manifest?.manifest_path) throw new UsageError(`'${entry.name}' has no manifest and cannot be published.`, { hint: `add manifest.yaml beside ${entry.path} (\`gym env init --${entry.kind} NAME\` scaffolds one)` });
    const { report } = await publishWorkload({ manifestPath: manifestPathOf(entry, "publishing"), searchDirs, roots }, await verifierDeps());
    if (ctx.args.json === true || keys.json === "true") process.stdout.write(`${JSON.stringify(report)}\n`);
    else process.stdout.write(`✓ Publication checks passed for ${report.kind} ${report.name} ${report.version}; catalog status=${report.status} (${report.verifier_cases} verifier cases).\n`);
    return 0;
  },
});
