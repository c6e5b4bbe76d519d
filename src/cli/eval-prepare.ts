/** `gym eval prepare`: Prepare benchmark data (components §3.9; built-in preparers, bundles, --data-dir). */
import { resolve } from "node:path";
import { preparedRoot } from "../assets/embedded.ts";
import { configAccess } from "../config/access.ts";
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError, UsageError } from "../errors.ts";
import { log } from "../log.ts";
import { checkPrepareScripts, prepareBenchmarks } from "../dataset/prepare.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { installBundle, writeBundle } from "../benchmarks/bundle.ts";
import { fetchEnvFromKeys } from "../benchmarks/fetch-env.ts";
import { planPrepare } from "../benchmarks/plan.ts";
import { checkBuiltins, prepareBuiltins } from "../benchmarks/prepare.ts";
import { defineGymCommand, type ParsedFlags } from "./_command.ts";
import { selectorFlags } from "./_flags.ts";

function list(v: ParsedFlags[string]): string[] {
  return Array.isArray(v) ? v : typeof v === "string" && v !== "" ? [v] : [];
}

function str(v: ParsedFlags[string]): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

const LAYOUT = `DATA-DIR LAYOUT (--data-dir DIR: no network at all)

  DIR/<benchmark>/<file>   one folder per benchmark, each file under the name its source uses:
    gsm8k/test.jsonl                            a URL source: the file name of its URL
    mmlu_pro/data/test-00000-of-00001.parquet   a Hub file: its path in the dataset repo
    gpqa/gpqa_diamond/train/0.parquet           a Hub parquet conversion: <config>/<split>/<n>.parquet
    global-piqa/configs.json                    every config of a Hub dataset: a JSON list of the config
                                                names, then <config>/<split>/<n>.parquet for each
  \`gym list benchmarks NAME\` shows each benchmark's sources and these file names.
  A bundle's sources/ folder has exactly this layout (\`tar -xf benchmarks.tar sources\`).

BUNDLES
  --bundle FILE       prepare the selected benchmarks and write FILE: prepared/<jsonl_fpath>,
                      sources/<benchmark>/<file> and manifest.json (sha256 of every file)
  --from-bundle FILE  check every checksum, then install the prepared JSONL files (no network)

Prepared files go to --output-dir DIR as DIR/<jsonl_fpath> (use it later with --search-dir DIR),
by default to gym's prepared-benchmark cache, which every command searches.`;

/** The `gym eval prepare` command. */
export default defineGymCommand({
  meta: { name: "prepare", description: "Prepare benchmark data" },
  args: {
    config: selectorFlags.config!,
    benchmark: { type: "string", repeatable: true, valueHint: "name", description: "Benchmark to prepare (repeatable; see `gym list benchmarks`)" },
    all: { type: "boolean", description: "Prepare every benchmark in the catalog" },
    "data-dir": { type: "string", valueHint: "dir", description: "Read source files from DIR/<benchmark>/ instead of the network (layout below)" },
    "output-dir": { type: "string", valueHint: "dir", description: "Write prepared JSONL as DIR/<jsonl_fpath> (default: gym's prepared-benchmark cache)" },
    bundle: { type: "string", valueHint: "file", description: "Also write the prepared benchmarks and their sources into one tar file" },
    "from-bundle": { type: "string", valueHint: "file", description: "Install prepared benchmarks from a bundle (checksums checked; no network)" },
    "search-dir": selectorFlags["search-dir"]!,
  },
  examples: [
    "gym eval prepare --benchmark gsm8k",
    "gym eval prepare --benchmark gpqa +hf_token=$HF_TOKEN",
    "gym eval prepare --all --bundle benchmarks.tar",
    "gym eval prepare --from-bundle benchmarks.tar",
    "gym eval prepare --benchmark gsm8k --data-dir ./sources",
    "gym eval prepare --benchmark gsm8k +use_cached_prepared_benchmarks=true",
  ],
  notes: LAYOUT,
  async run({ args: flags, data }) {
    const names = list(flags.benchmark);
    const all = flags.all === true;
    const configs = list(flags.config);
    const searchDirs = list(flags["search-dir"]);
    const fromBundle = str(flags["from-bundle"]);
    const bundle = str(flags.bundle);
    const dataDir = str(flags["data-dir"]);
    const outputRoot = resolve(str(flags["output-dir"]) ?? preparedRoot());
    if (fromBundle && (bundle || dataDir || all || configs.length > 0)) throw new UsageError("--from-bundle installs a bundle; it takes only --benchmark (to pick some), --output-dir and --search-dir");
    if (all && names.length > 0) throw new UsageError("pass --all or --benchmark NAME, not both");
    if (fromBundle) {
      installBundle(resolve(fromBundle), outputRoot, names);
      return 0;
    }
    if (configs.length === 0 && names.length === 0 && !all) throw new UsageError("nothing to prepare", { hint: "pass --benchmark NAME (repeatable), --all, --config PATH or --from-bundle FILE" });
    if (configs.length > 0 && (names.length > 0 || all)) throw new UsageError("pass --config or --benchmark/--all, not both");

    const resolved = await resolveGlobalConfig({ selectors: { configPaths: configs, searchDirs }, overrides: data.overrides, noModel: true });
    const keys = keysOf(resolved);
    const read = configAccess(resolved).read;
    const processes = Number(read("num_prepare_benchmark_processes") ?? 1);
    if (!Number.isInteger(processes) || processes < 1) throw new ConfigError("num_prepare_benchmark_processes must be an integer ≥ 1", { key: "num_prepare_benchmark_processes" });
    const args = read("prepare_script_args") ?? {};
    if (typeof args !== "object" || Array.isArray(args) || args === null) throw new ConfigError("prepare_script_args must be a mapping", { key: "prepare_script_args" });
    const python = read("python_executable");
    const useCached = read("use_cached_prepared_benchmarks") === true;

    await import("../benchmarks/index.ts");
    const plan = await planPrepare(resolved, { names, all, fromConfig: configs.length > 0 });
    if (bundle && plan.python.length > 0) {
      throw new ConfigError(`--bundle holds built-in preparations only; these run a Python prepare_script: ${plan.python.map((j) => j.name).join(", ")}`, { hint: "bundle the others, and copy those benchmarks' JSONL files yourself" });
    }
    if (dataDir && plan.python.length > 0) log.warn(`--data-dir does not apply to Python prepare scripts (${plan.python.map((j) => j.name).join(", ")})`);
    const fetch = fetchEnvFromKeys(keys, dataDir);
    // Everything is checked before anything runs: built-in sources first, then the Python scripts.
    checkBuiltins(plan.builtin, fetch);
    const pyOpts = { useCached, processes, args: args as Record<string, unknown>, python: typeof python === "string" && python !== "" ? python : "python3", cwd: process.cwd() };
    if (plan.python.length > 0) checkPrepareScripts(plan.python, pyOpts);
    const prepared = await prepareBuiltins(plan.builtin, { outputRoot, useCached, processes, fetch, collect: bundle !== undefined });
    if (plan.python.length > 0) await prepareBenchmarks(plan.python, pyOpts);
    if (bundle) writeBundle(resolve(bundle), prepared);
    return 0;
  },
});
