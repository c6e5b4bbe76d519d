/**
 * `gym env test [--resources-server N]`: test one resources server or every one in the search
 * roots (cli-config §2.4, §6.6, §12 item 13): data checks, the server's own unit tests when it is
 * external, and its example rows run end to end with the offline `scripted_model`. A per-check
 * report on stdout (`--json`: one JSON object); exit 1 when any check fails.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { searchRoots } from "../config/roots.ts";
import { GymError, EXIT_USAGE, UsageError } from "../errors.ts";
import { verifyWorkload, type VerifierDeps, type VerifierReport } from "../devtools/manifest-verifier.ts";
import { manifestPathOf, resolveCatalogEntry } from "../devtools/manifest-workload.ts";
import { discoverResourcesServers, discoverServerDirs, findServerDir } from "../devtools/discover.ts";
import { renderReport, testOtherServer, testServer } from "../devtools/test-server.ts";
import type { ServerReport } from "../devtools/check.ts";
import { defineGymCommand } from "./_command.ts";
import { jsonFlag, searchDirFlag } from "./_flags.ts";

/** Command keys this command reads from `+key=value` tokens; the rest reach the example run's config. */
const COMMAND_KEYS = new Set(["entrypoint", "should_validate_data", "onboarding_name", "python_executable", "env_test_timeout_seconds", "json", "update_expected", "catalog_kind"]);
/** The keys a manifest-backed test accepts (upstream _MANIFEST_TEST_KEYS). */
const MANIFEST_TEST_KEYS = new Set(["onboarding_name", "catalog_kind", "update_expected", "json", "verbose"]);

function commandKeys(tokens: string[]): { keys: Record<string, string>; rest: string[] } {
  const keys: Record<string, string> = {};
  const rest: string[] = [];
  for (const t of tokens) {
    const eq = t.indexOf("=");
    const key = eq < 0 ? "" : t.slice(0, eq).replace(/^\+{1,2}/, "");
    if (COMMAND_KEYS.has(key)) keys[key] = t.slice(eq + 1).replace(/^"(.*)"$/, "$1");
    else rest.push(t);
  }
  return { keys, rest };
}

function isFalse(v: string | undefined): boolean {
  return v !== undefined && /^(false|False|0)$/.test(v);
}

/** Resolve the catalog entry, validate it and exercise its verifier fixture (manifest-backed workloads). */
async function testWorkload(name: string, kind: string | undefined, searchDirs: string[], updateExpected: boolean): Promise<VerifierReport> {
  const roots = await searchRoots({ searchDirs });
  let entry: ReturnType<typeof resolveCatalogEntry>;
  try {
    entry = resolveCatalogEntry(name, kind, roots);
  } catch (e) {
    // A user who names a resources server here means "test that server": say the flag that does it.
    if (kind === undefined && findServerDir("resources_servers", name, roots)) {
      throw new UsageError(`'${name}' is a resources server, not a manifest-backed workload`, { hint: `run \`gym env test --resources-server ${name}\`` });
    }
    throw e;
  }
  const manifestPath = manifestPathOf(entry, "running verifier checks");
  return await verifyWorkload({ manifestPath, searchDirs, updateExpected }, await verifierDeps());
}

/** The registry lookup and embedded root the verifier runner needs (components load here, in the CLI). */
export async function verifierDeps(): Promise<VerifierDeps> {
  await import("../components/index.ts");
  const { findBuiltin } = await import("../components/registry.ts");
  const { embeddedRoot } = await import("../assets/embedded.ts");
  return { findBuiltin, embeddedRoot: await embeddedRoot() };
}

/** The `gym env test` command. */
export default defineGymCommand({
  meta: { name: "test", description: "Test resources servers: data checks, unit tests, example rows end to end" },
  args: {
    name: { type: "positional", required: false, description: "Manifest-backed workload: validate it and run its verifier fixture" },
    kind: { type: "enum", options: ["environment", "benchmark"], description: "Catalog kind of NAME" },
    "update-expected": { type: "boolean", description: "Record the observed rewards in the verifier fixture (after every other check passed)" },
    "resources-server": { type: "string", valueHint: "name", description: "Test one server (+entrypoint=resources_servers/<name>); default: all" },
    ...jsonFlag,
    "search-dir": searchDirFlag,
  },
  examples: ["gym env test --resources-server example_single_tool_call", "gym env test --json", "gym env test my_env --search-dir ./plugins", "gym env test --resources-server my_server +should_validate_data=false"],
  async run(ctx) {
    const a = ctx.args;
    const { keys, rest } = commandKeys(ctx.data.overrides);
    const workload = (typeof a.name === "string" ? a.name : undefined) ?? keys.onboarding_name;
    let entrypoint = typeof a["resources-server"] === "string" ? `resources_servers/${a["resources-server"]}` : keys.entrypoint;
    if (workload !== undefined && entrypoint !== undefined) throw new UsageError("gym env test: error: select a workload name or --resources-server, not both");
    if (workload === undefined && (a.kind !== undefined || a["update-expected"] === true || keys.update_expected !== undefined || keys.catalog_kind !== undefined)) {
      throw new UsageError("gym env test: error: --kind, --update-expected, and --json require a workload name", {
        hint: "--json alone works with --resources-server or with no target (gym extension)",
      });
    }
    if (workload !== undefined) {
      const extra = [...Object.keys(keys).filter((k) => !MANIFEST_TEST_KEYS.has(k)), ...rest.map((o) => o.replace(/^[+~]+/, "").split("=")[0]!)];
      if (extra.length) throw new UsageError(`Manifest-backed commands do not accept runtime config overrides: ${extra.join(", ")}`);
      const searchDirs = Array.isArray(a["search-dir"]) ? a["search-dir"] : [];
      const kind = typeof a.kind === "string" ? a.kind : keys.catalog_kind;
      const report = await testWorkload(workload, kind, searchDirs, a["update-expected"] === true || keys.update_expected === "true");
      if (a.json === true || keys.json === "true") process.stdout.write(`${JSON.stringify(report)}\n`);
      else process.stdout.write(`✓ Verifier: ${report.name} (${report.resources_server}) ${report.cases.length} cases passed.\n`);
      return 0;
    }
    const searchDirs = Array.isArray(a["search-dir"]) ? a["search-dir"] : [];
    const roots = await searchRoots({ searchDirs });
    await import("../components/index.ts");
    const { isBuiltin } = await import("../components/registry.ts");
    const timeout = Number(keys.env_test_timeout_seconds ?? 300);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`gym env test: error: env_test_timeout_seconds must be a positive number, got ${keys.env_test_timeout_seconds}`);
    const settings = {
      searchDirs,
      overrides: rest,
      isBuiltin,
      python: keys.python_executable && keys.python_executable !== "" ? keys.python_executable : "python3",
      deadlineMs: timeout * 1000,
      // Upstream validates data for test-all always; gym also does for one server unless told not to.
      validateData: !isFalse(keys.should_validate_data),
    };

    type Target = { type: "resources_servers" | "responses_api_agents" | "responses_api_models"; name: string; dir: string };
    let targets: Target[];
    if (entrypoint !== undefined) {
      entrypoint = entrypoint.replace(/\/+$/, "");
      const m = /^(resources_servers|responses_api_agents|responses_api_models)\/([^/]+)$/.exec(entrypoint);
      if (!m) {
        throw new UsageError(`gym env test: error: entrypoint must be <server type>/<name> (resources_servers, responses_api_agents or responses_api_models), got '${entrypoint}'`, {
          hint: "pass --resources-server NAME, or +entrypoint=responses_api_agents/NAME",
        });
      }
      const type = m[1] as Target["type"];
      const found = findServerDir(type, m[2]!, roots);
      if (!found) {
        throw new GymError(`no directory ${entrypoint} in the search roots (${roots.join(", ")})`, {
          code: "E_NOT_FOUND",
          exitCode: EXIT_USAGE,
          hint: "run from the directory that holds resources_servers/, or pass --search-dir; `gym list resources-servers` shows what exists",
        });
      }
      targets = [{ type, ...found }];
    } else {
      // Every resources server; agents and models only when they are external and ship tests (built-ins have nothing here to run).
      targets = [
        ...discoverResourcesServers(roots).map((f) => ({ type: "resources_servers" as const, ...f })),
        ...(["responses_api_agents", "responses_api_models"] as const).flatMap((type) =>
          discoverServerDirs(type, roots)
            .filter((f) => !isBuiltin(type, f.name) && existsSync(join(f.dir, "tests")))
            .map((f) => ({ type, ...f })),
        ),
      ];
      process.stderr.write(`Found ${targets.length} servers to test:${targets.map((t) => `\n- ${t.type}/${t.name}`).join("")}\n`);
    }

    const reports: ServerReport[] = [];
    for (const t of targets) {
      process.stderr.write(`Testing ${t.type}/${t.name} ...\n`);
      reports.push(t.type === "resources_servers" ? await testServer(t.name, t.dir, settings) : await testOtherServer(t.type, t.name, t.dir, settings));
    }
    const ok = reports.every((r) => r.ok);
    if (a.json === true || keys.json === "true") process.stdout.write(`${JSON.stringify({ ok, servers: reports })}\n`);
    else process.stdout.write(renderReport(reports));
    return ok ? 0 : 1;
  },
});
