/**
 * `gym dataset collate` (components §4.1, upstream `ng_prepare_data`): find the agents' in-scope
 * datasets, validate every row (`responses_create_params` required), compute statistics, write
 * or diff the `_metrics.json` sidecars, and collate each type into `<output_dirpath>/<type>.jsonl`
 * with `agent_ref` stamped so rollout collection can route each row.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { Compile } from "typebox/compile";
import { ConfigError } from "../errors.ts";
import { log } from "../log.ts";
import { configAccess } from "../config/access.ts";
import { resolveInRoots } from "../config/roots.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { readLines } from "../util/jsonl.ts";
import { ResponseCreateParams } from "../servers/openai-schemas.ts";
import { pyJsonDumps } from "../util/py-json.ts";
import type { DatasetEntry } from "./dataset-entry.ts";
import { downloadDataset } from "./hub.ts";
import { applyPrompt, loadPromptConfig, type PromptConfig } from "./prompt.ts";
import { diffMetrics, DatasetStats } from "./stats.ts";

/** Collate settings (top-level keys of the no-model config). */
export interface CollateOptions {
  mode: "train_preparation" | "example_validation";
  outputDir: string;
  shouldDownload: boolean;
  overwriteConflicts: boolean;
  dataSource: "huggingface" | "gitlab";
  /** Dataset types to collate instead of the mode's own scope (serve mode's `--split example`). */
  types?: string[];
  /** Write `<dataset>_metrics.json` / `_prepare.jsonl` next to each dataset (default true, as upstream). */
  sidecars?: boolean;
}

/** Dataset types in scope per mode. */
export function typesInScope(mode: CollateOptions["mode"]): string[] {
  return mode === "example_validation" ? ["example"] : ["train", "validation", "benchmark"];
}

/** List the agents' datasets of the in-scope types. */
export function findDatasets(resolved: ResolvedConfig, mode: CollateOptions["mode"], types?: string[]): DatasetEntry[] {
  const scope = types ?? typesInScope(mode);
  const out: DatasetEntry[] = [];
  for (const s of resolved.servers) {
    if (s.serverType !== "responses_api_agents") continue;
    const raw = configAccess(resolved).at([s.name, s.serverType, s.implementation, "datasets"]);
    if (!Array.isArray(raw)) continue;
    for (const d of raw as Record<string, unknown>[]) {
      if (!d || typeof d !== "object" || !scope.includes(String(d.type))) continue;
      const jsonl = String(d.jsonl_fpath ?? "");
      if (!jsonl) throw new ConfigError(`dataset '${d.name}' of agent '${s.name}' has no jsonl_fpath`, { key: `${s.name}.${s.serverType}.${s.implementation}.datasets` });
      const path = resolveInRoots(jsonl, resolved.roots);
      const prompt = d.type === "benchmark" && typeof d.prompt_config === "string" ? loadPromptConfig(d.prompt_config, resolved.roots) : undefined;
      out.push({ agent: s.name, config: d, name: String(d.name ?? basename(jsonl)), type: String(d.type), path, repeats: Number(d.num_repeats ?? 1) || 1, prompt });
    }
  }
  return out;
}

const checkRcp = Compile(ResponseCreateParams);

/** Stream one dataset's rows (each repeated `repeats` times, `aaabbb`), prompt applied. */
async function* rows(d: DatasetEntry): AsyncGenerator<{ index: number; row: Record<string, unknown> | undefined }> {
  let index = 0;
  for await (const l of readLines(d.path)) {
    if (l.text.trim() === "") continue;
    let row: Record<string, unknown> | undefined;
    try {
      const v = JSON.parse(l.text);
      row = v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
      if (row && d.prompt) row = applyPrompt(d.prompt, row, `${d.path}:${l.lineNo}`);
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      row = undefined;
    }
    for (let r = 0; r < d.repeats; r++) yield { index: index++, row };
  }
}

function metricsDoc(d: DatasetEntry, stats: DatasetStats): Record<string, unknown> {
  const cfg: Record<string, unknown> = { name: d.name, type: d.type, jsonl_fpath: d.config.jsonl_fpath, num_repeats: d.repeats };
  for (const k of ["source", "gitlab_identifier", "huggingface_identifier", "license", "prepare_script", "prompt_config"]) {
    if (d.config[k] !== undefined) cfg[k] = d.config[k];
  }
  return { ...cfg, ...stats.toJSON() };
}

/** Write `doc` to `path` unless an earlier file disagrees; returns the conflict file on disagreement. */
function writeOrCompare(path: string, doc: Record<string, unknown>, overwrite: boolean): string | undefined {
  const text = `${JSON.stringify(doc, null, 4)}\n`;
  if (existsSync(path)) {
    const old = readFileSync(path, "utf8");
    if (old === text) return undefined; // identical: leave read-only shared dirs untouched
    let prev: unknown;
    try {
      prev = JSON.parse(old);
    } catch {
      prev = {};
    }
    const diffs = diffMetrics(prev, doc);
    if (diffs.length > 0 && !overwrite) {
      const conflict = join(dirname(path), `${basename(path, extname(path))}_conflict.json`);
      writeFileSync(conflict, text);
      log.warn(`Differences found in aggregate metrics of ${path}:\n  ${diffs.slice(0, 20).join("\n  ")}`);
      return conflict;
    }
    if (diffs.length === 0) return undefined;
  }
  writeFileSync(path, text);
  return undefined;
}

function conflictError(conflicts: string[]): ConfigError {
  return new ConfigError(
    `Found conflicting aggregate metrics that need to be corrected:\n- ${conflicts.join("\n- ")}\n\nThis could be due to a change in how metrics are calculated, leading to outdated metrics. Try deleting the below file(s) and rerunning data preparation:\n- ${conflicts.map((c) => c.replace(/_conflict\.json$/, ".json")).join("\n- ")}`,
    { hint: "or pass +overwrite_metrics_conflicts=true" },
  );
}

/** Run the whole collation; returns the collated file per dataset type. */
export async function collate(resolved: ResolvedConfig, opts: CollateOptions): Promise<Record<string, string>> {
  const scope = opts.types ?? typesInScope(opts.mode);
  const sidecars = opts.sidecars !== false;
  const datasets = findDatasets(resolved, opts.mode, opts.types);
  log.info(`In scope dataset types for \`${opts.mode}\` mode: ${scope.join(", ")}; ${datasets.length} dataset(s): ${datasets.map((d) => `${d.agent}/${d.name} (${d.type})`).join(", ") || "none"}`);
  const missing = datasets.filter((d) => !existsSync(d.path));
  if (missing.length > 0) {
    const list = missing.map((d) => `- ${d.agent}: ${d.name} (${d.type}) at ${d.path}`).join("\n");
    if (opts.mode === "example_validation") throw new ConfigError(`MISSING the following datasets:\n${list}\nYou must provide the above missing example jsonl files!`);
    if (!opts.shouldDownload) {
      throw new ConfigError(`MISSING the following datasets:\n${list}\nMissing local datasets. You must provide local datasets since download is disabled. Run with \`+should_download=true\` to enable downloading.`, {
        hint: "or pass --download",
      });
    }
    for (const d of missing) await downloadDataset(d, opts.dataSource, resolved);
  }

  const byType = new Map<string, DatasetStats>();
  const conflicts: string[] = [];
  for (const d of datasets) {
    const stats = new DatasetStats();
    for await (const { index, row } of rows(d)) {
      const rcp = row?.responses_create_params;
      if (!row || !rcp || typeof rcp !== "object" || !checkRcp.Check(rcp)) stats.offending.push(index);
      else stats.observe(row);
    }
    if (stats.offending.length > 0) {
      const shown = stats.offending.slice(0, 20).join(", ") + (stats.offending.length > 20 ? `, … (${stats.offending.length})` : "");
      throw new ConfigError(`${d.path}: ${stats.offending.length} row(s) are not JSON objects with a valid responses_create_params (sample indices, repeats expanded: ${shown})`, {
        location: { file: d.path },
        hint: "every row needs responses_create_params with an input (see `gym env validate`)",
      });
    }
    const total = byType.get(d.type) ?? new DatasetStats();
    total.add(stats);
    byType.set(d.type, total);
    if (!sidecars) continue;
    const sidecar = join(dirname(d.path), `${basename(d.path, extname(d.path))}_metrics.json`);
    const c = writeOrCompare(sidecar, metricsDoc(d, stats), opts.overwriteConflicts);
    if (c) conflicts.push(c);
  }
  if (conflicts.length > 0) throw conflictError(conflicts);

  mkdirSync(opts.outputDir, { recursive: true });
  const final: Record<string, string> = {};
  for (const type of scope) {
    const stats = byType.get(type);
    if (!stats) continue;
    const c = writeOrCompare(join(opts.outputDir, `${type}_metrics.json`), stats.toJSON(false), opts.overwriteConflicts);
    if (c) {
      conflicts.push(c);
      continue;
    }
    const collated = join(opts.outputDir, `${type}.jsonl`);
    const out = openSync(`${collated}.tmp`, "w");
    try {
      for (const d of datasets.filter((x) => x.type === type)) {
        const prepare = join(dirname(d.path), `${basename(d.path, extname(d.path))}_prepare.jsonl`);
        const pf = sidecars ? openSync(prepare, "w") : undefined;
        try {
          for await (const { row } of rows(d)) {
            const line = `${pyJsonDumps({ ...row, agent_ref: { type: "responses_api_agents", name: d.agent } })}\n`;
            if (pf !== undefined) writeSync(pf, line);
            writeSync(out, line);
          }
        } finally {
          if (pf !== undefined) closeSync(pf);
        }
      }
    } finally {
      closeSync(out);
    }
    renameSync(`${collated}.tmp`, collated);
    final[type] = collated;
  }
  if (conflicts.length > 0) throw conflictError(conflicts);
  process.stderr.write(`View your final data!${Object.entries(final).map(([t, p]) => `\n- ${t}: ${p}`).join("")}\n`);
  return final;
}
