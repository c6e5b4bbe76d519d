/**
 * `gym dataset render` (components §6, upstream `prompt.materialize_prompts`): apply a prompt
 * config to every row of a raw JSONL file, writing `responses_create_params.input` and
 * `prompt_config_used`. A first pass checks every row (pre-filled inputs are reported together,
 * as upstream does) so nothing is written for a file that cannot be rendered whole; the output
 * is staged and renamed into place at the end.
 */
import { existsSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { resolveInRoots } from "../config/roots.ts";
import { readLines } from "../rollout/jsonl.ts";
import { formatMap, loadPromptConfig, type PromptConfig } from "./prompt.ts";
import { parsePyJson, pyDumps, PyNumber, pyStrOf } from "./render-python.ts";
import { withStagedOutputs } from "./upload-files.ts";

/** Python truthiness of a JSON value (upstream tests `rcp.get("input")`). */
function truthy(v: unknown): boolean {
  if (v instanceof PyNumber) return v.value !== 0;
  if (v === undefined || v === null || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

function rcpOf(row: Record<string, unknown>): Record<string, unknown> | undefined {
  const rcp = row.responses_create_params;
  return rcp !== null && typeof rcp === "object" && !Array.isArray(rcp) ? (rcp as Record<string, unknown>) : undefined;
}

/** The rows of a JSONL file (blank lines skipped), numbers kept as Python sees them. */
async function* rows(path: string): AsyncGenerator<{ value: Record<string, unknown>; lineNo: number }> {
  for await (const l of readLines(path)) {
    if (l.text.trim() === "") continue;
    let value: unknown;
    try {
      value = parsePyJson(l.text);
    } catch (e) {
      throw new ConfigError(`malformed JSON at line ${l.lineNo}: ${(e as Error).message}`, { key: "input_jsonl_fpath", location: { file: path, line: l.lineNo }, hint: "every line must be one JSON object" });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof PyNumber) {
      throw new ConfigError(`line ${l.lineNo} is not a JSON object`, { key: "input_jsonl_fpath", location: { file: path, line: l.lineNo } });
    }
    yield { value: value as Record<string, unknown>, lineNo: l.lineNo };
  }
}

/** Upstream's `apply_prompt_to_row`: the row with `responses_create_params.input` built from the template. */
function applyPromptPy(cfg: PromptConfig, row: Record<string, unknown>, where: string): Record<string, unknown> {
  // format_map sees Python's str() of each field, so `1.0` renders as 1.0 (formatMap passes strings through).
  const view = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, pyStrOf(v)]));
  const input: { role: string; content: string }[] = [];
  if (cfg.system !== undefined) input.push({ role: "system", content: formatMap(cfg.system, view, `${where} (system prompt)`) });
  input.push({ role: "user", content: formatMap(cfg.user, view, `${where} (user prompt)`) });
  const rcp = rcpOf(row) ?? {};
  return { ...row, responses_create_params: { ...rcp, input } };
}

/** Render `input` with the prompt config into `output`; returns the row count and the resolved paths. */
export async function renderPrompts(input: string, promptConfig: string, output: string, roots: string[]): Promise<{ rows: number; output: string; promptPath: string }> {
  const inputPath = resolveInRoots(input, roots);
  if (!existsSync(inputPath)) {
    throw new ConfigError(`input_jsonl_fpath not found: '${input}'`, { key: "input_jsonl_fpath", hint: "check the path (relative paths resolve from the current directory, then the search roots)" });
  }
  const cfg = loadPromptConfig(promptConfig, roots);

  // Pass 1: every row is an object and none carries an input of its own (all offenders at once).
  const violating: number[] = [];
  let index = 0;
  for await (const { value } of rows(inputPath)) {
    if (truthy(rcpOf(value)?.input)) violating.push(index);
    index++;
  }
  if (violating.length > 0) {
    throw new ConfigError(
      `${inputPath}: Some rows have responses_create_params.input but prompt_config is also specified. These are mutually exclusive. Use one or the other. Violating rows: [${violating.join(", ")}]`,
      { key: "prompt_config", hint: "render raw rows only (no responses_create_params.input), or drop --prompt-config" },
    );
  }

  // Pass 2: write the rendered rows.
  let count = 0;
  const { paths } = await withStagedOutputs(async (out) => {
    const sink = Bun.file(out.stage(output)).writer();
    try {
      for await (const { value, lineNo } of rows(inputPath)) {
        // A falsy input (`""`, `[]`, null) passed pass 1: it is replaced, keeping its key position.
        const rendered = applyPromptPy(cfg, value, `${inputPath}:${lineNo}`);
        rendered.prompt_config_used = cfg.path;
        sink.write(`${pyDumps(rendered)}\n`);
        count++;
      }
    } finally {
      await sink.end();
    }
  });
  return { rows: count, output: paths[0]!, promptPath: cfg.path };
}

/**
 * The prompt messages of one row (1-based `row`) as rollout collection would send them: the
 * prompt config applied when given, else the row's own `responses_create_params.input`.
 */
export async function renderOneRow(input: string, promptConfig: string | undefined, row: number, roots: string[]): Promise<{ messages: unknown; path: string; lineNo: number }> {
  const inputPath = resolveInRoots(input, roots);
  if (!existsSync(inputPath)) throw new ConfigError(`input_jsonl_fpath not found: '${input}'`, { key: "input_jsonl_fpath" });
  const cfg = promptConfig ? loadPromptConfig(promptConfig, roots) : undefined;
  let index = 0;
  for await (const { value, lineNo } of rows(inputPath)) {
    if (++index < row) continue;
    const where = `${inputPath}:${lineNo}`;
    if (!cfg) return { messages: rcpOf(value)?.input ?? null, path: inputPath, lineNo };
    if (truthy(rcpOf(value)?.input)) throw new ConfigError(`${where}: the row has responses_create_params.input and a prompt_config is also specified; these are mutually exclusive`, { key: "prompt_config" });
    return { messages: rcpOf(applyPromptPy(cfg, value, where))!.input, path: inputPath, lineNo };
  }
  throw new ConfigError(`${inputPath} has ${index} row(s); there is no row ${row}`, { hint: `pick --row between 1 and ${index}` });
}
