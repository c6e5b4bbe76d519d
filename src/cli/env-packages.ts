/**
 * `gym env packages --resources-server N`: list the Python packages of an external server's
 * `.venv` (cli-config §2.4). A missing venv prints a hint and exits 1; `--json` asks the lister
 * for `--format json` (upstream `+format=json`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { searchRoots } from "../config/roots.ts";
import { ConfigError, RuntimeError } from "../errors.ts";
import { packagesCommand, runPackages } from "../devtools/packages.ts";
import { findResourcesServer } from "../devtools/discover.ts";
import { searchDirFlag } from "./_flags.ts";
import { defineGymCommand } from "./_command.ts";

function key(tokens: string[], name: string): string | undefined {
  for (const t of tokens) {
    const m = /^\+{0,2}([^=]+)=(.*)$/.exec(t);
    if (m && m[1] === name) return m[2]!.replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}

/** The `gym env packages` command. */
export default defineGymCommand({
  meta: { name: "packages", description: "List the Python packages of an external server's venv" },
  args: {
    "resources-server": { type: "string", valueHint: "name", description: "The server (+entrypoint=resources_servers/<name>)" },
    outdated: { type: "boolean", description: "Only outdated packages (+outdated=true)" },
    json: { type: "boolean", description: "JSON output (+format=json)" },
    "search-dir": searchDirFlag,
  },
  examples: ["gym env packages --resources-server my_server", "gym env packages --resources-server my_server --json"],
  async run(ctx) {
    const a = ctx.args;
    const tokens = ctx.data.overrides;
    const entrypoint = (typeof a["resources-server"] === "string" ? `resources_servers/${a["resources-server"]}` : key(tokens, "entrypoint"))?.replace(/\/+$/, "");
    if (!entrypoint) throw new ConfigError("entrypoint is required", { key: "entrypoint", hint: "pass --resources-server NAME (or +entrypoint=<server type>/<name>)" });
    const format = a.json === true ? "json" : key(tokens, "format");
    const outdated = a.outdated === true || key(tokens, "outdated") === "true";
    const roots = await searchRoots({ searchDirs: Array.isArray(a["search-dir"]) ? a["search-dir"] : [] });
    const m = /^resources_servers\/([^/]+)$/.exec(entrypoint);
    const found = m ? findResourcesServer(m[1]!, roots)?.dir : roots.map((r) => join(r, entrypoint)).find((d) => existsSync(join(d, ".venv", "bin", "python")));
    const dir = found ?? join(process.cwd(), entrypoint);
    const cmd = packagesCommand({ dir, format, outdated });
    if (!cmd) {
      throw new RuntimeError(`No virtual environment at ${join(dir, ".venv")}`, {
        hint: `built-in servers have none; for an external Python server create it, e.g. \`uv venv ${join(dir, ".venv")} && uv pip install --python ${join(dir, ".venv", "bin", "python")} -r ${join(dir, "requirements.txt")}\``,
      });
    }
    if (cmd.viaPip) process.stderr.write(`uv is not installed; listing with ${cmd.argv.slice(0, 3).join(" ")} ${cmd.argv[3]} instead\n`);
    // The lister's own exit code, as upstream passes it through.
    return await runPackages(cmd.argv, cmd.venv, 120_000);
  },
});
