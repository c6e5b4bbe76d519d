/** `gym dataset render`: Render prompts into a JSONL dataset (components §6, upstream `ng_materialize_prompts`). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { existsSync } from "node:fs";
import { CatalogError, findCatalogEntry } from "../config/catalog.ts";
import { resolveInRoots } from "../config/roots.ts";
import { ConfigError, ConfigErrors, UsageError } from "../errors.ts";
import { readBenchmarkDataset, type BenchmarkDataset } from "../benchmarks/dataset-block.ts";
import { log } from "../log.ts";
import { renderOneRow, renderPrompts } from "../dataset/render.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides, selectorArgs, selectorFlags } from "./_flags.ts";

/** The `gym dataset render` command. */
export default defineGymCommand({
  meta: { name: "render", description: "Render prompts into a JSONL dataset" },
  args: {
    input: { type: "string", alias: "i", valueHint: "path", description: "Raw JSONL rows, without responses_create_params.input (+input_jsonl_fpath)" },
    "prompt-config": { type: "string", valueHint: "path", description: "Prompt YAML {user, system?} (+prompt_config)" },
    output: { type: "string", alias: "o", valueHint: "path", description: "Rendered JSONL (+output_jsonl_fpath)" },
    benchmark: { type: "string", valueHint: "name", description: "Use a prepared benchmark's JSONL and its prompt_config (-i/--prompt-config default to them)" },
    row: { type: "string", valueHint: "n", description: "Print the rendered prompt of row N (1 = first) on stdout instead of writing a file" },
    json: { type: "boolean", description: "With --row: print the messages as JSON" },
    "search-dir": selectorFlags["search-dir"]!,
  },
  examples: [
    "gym dataset render -i data/raw.jsonl --prompt-config prompts/math.yaml -o data/rendered.jsonl",
    "gym dataset render --benchmark gsm8k --row 1",
    "gym dataset render --benchmark gpqa --prompt-config benchmarks/prompts/eval/aai/mcq-4choices-boxed.yaml --row 3 --json",
  ],
  async run({ args: flags, data }) {
    const overrides = [
      ...flagsToOverrides(flags, [
        { flag: "input", key: "input_jsonl_fpath" },
        { flag: "prompt-config", key: "prompt_config" },
        { flag: "output", key: "output_jsonl_fpath" },
      ]),
      ...data.overrides,
    ];
    const bench = typeof flags.benchmark === "string" && flags.benchmark !== "" ? flags.benchmark : undefined;
    const resolved = await resolveGlobalConfig({ selectors: { ...selectorArgs(flags), benchmark: undefined }, overrides, noModel: true });
    const keys = keysOf(resolved);
    const rowFlag = typeof flags.row === "string" ? flags.row : bench && keys.str("output_jsonl_fpath") === undefined ? "1" : undefined;
    if (bench || rowFlag !== undefined) {
      let input = keys.str("input_jsonl_fpath");
      let prompt = keys.str("prompt_config");
      if (bench) {
        const d = benchmarkDataset(bench, resolved.roots);
        input ??= d.jsonlFpath;
        prompt ??= d.promptConfig;
        if (!existsSync(resolveInRoots(input, resolved.roots))) throw new ConfigError(`benchmark '${bench}' is not prepared yet (${input} is in no search root)`, { hint: `gym eval prepare --benchmark ${bench}` });
      }
      if (!input) throw new ConfigError("input_jsonl_fpath is required (pass -i/--input PATH or --benchmark NAME)", { key: "input_jsonl_fpath" });
      if (rowFlag !== undefined) {
        const n = Number(rowFlag);
        if (!Number.isInteger(n) || n < 1) throw new UsageError(`--row must be a positive integer, got '${rowFlag}'`);
        const r = await renderOneRow(input, prompt, n, resolved.roots);
        if (flags.json === true) process.stdout.write(`${JSON.stringify(r.messages, null, 2)}\n`);
        else {
          const msgs = Array.isArray(r.messages) ? (r.messages as { role?: unknown; content?: unknown }[]) : [];
          process.stdout.write(msgs.map((m) => `--- ${String(m.role ?? "?")} ---\n${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`).join("\n") + "\n");
        }
        log.info(`row ${n} of ${r.path} (line ${r.lineNo})${prompt ? ` rendered with ${prompt}` : " (pre-rendered input)"}`);
        return 0;
      }
      return renderFile({ input_jsonl_fpath: input, prompt_config: prompt, output_jsonl_fpath: keys.str("output_jsonl_fpath") }, resolved.roots);
    }
    return renderFile({ input_jsonl_fpath: keys.str("input_jsonl_fpath"), prompt_config: keys.str("prompt_config"), output_jsonl_fpath: keys.str("output_jsonl_fpath") }, resolved.roots);
  },
});

/** The benchmark dataset block of a catalog benchmark. */
function benchmarkDataset(name: string, roots: string[]): BenchmarkDataset {
  let entry;
  try {
    entry = findCatalogEntry(name, "benchmark", roots);
  } catch (e) {
    if (e instanceof CatalogError) throw new ConfigError(e.message, { key: "--benchmark", hint: e.hint });
    throw e;
  }
  const d = readBenchmarkDataset(entry.path);
  if (!d) throw new ConfigError(`${entry.path}: no \`type: benchmark\` dataset in it`);
  return d;
}

/** Render a whole file (upstream materialize_prompts). */
async function renderFile(values: Record<string, string | undefined>, roots: string[]): Promise<number> {
  const required: [string, string][] = [["input_jsonl_fpath", "-i/--input PATH"], ["prompt_config", "--prompt-config PATH"], ["output_jsonl_fpath", "-o/--output PATH"]];
  const missing = required.filter(([k]) => values[k] === undefined).map(([k, flag]) => new ConfigError(`${k} is required (pass ${flag})`, { key: k }));
  if (missing.length > 0) throw new ConfigErrors("gym dataset render: missing required keys", missing);
  const [input, prompt, output] = required.map(([k]) => values[k]!) as [string, string, string];
  const r = await renderPrompts(input, prompt, output, roots);
  log.info(`Materialized ${r.rows} rows to ${r.output}`);
  process.stdout.write(`${r.output}\n`);
  return 0;
}
