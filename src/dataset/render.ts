/**
 * `gym dataset render` (components §6, upstream `prompt.materialize_prompts`): apply a prompt
 * config to every row of a raw JSONL file, writing `responses_create_params.input` and
 * `prompt_config_used`. A first pass checks every row (pre-filled inputs are reported together,
 * as upstream does) so nothing is written for a file that cannot be rendered whole; the output
 * is staged and renamed into place at the end.
 */
import { ConfigError } from "../errors.ts";
import { resolveInRoots } from "../config/roots.ts";
import { readJsonl, JsonlLineError } from "../rollout/jsonl.ts";
import { pyJsonDumps } from "../servers/py-json.ts";
import { applyPrompt, loadPromptConfig } from "./prompt.ts";
import { withStagedOutputs } from "./upload-files.ts";
import { existsSync } from "node:fs";

/** Python truthiness of a JSON value (upstream tests `rcp.get("input")`). */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

function rcpOf(row: Record<string, unknown>): Record<string, unknown> | undefined {
  const rcp = row.responses_create_params;
  return rcp !== null && typeof rcp === "object" && !Array.isArray(rcp) ? (rcp as Record<string, unknown>) : undefined;
}

async function* rows(path: string): AsyncGenerator<{ value: Record<string, unknown>; lineNo: number }> {
  try {
    yield* readJsonl(path);
  } catch (e) {
    if (e instanceof JsonlLineError) throw new ConfigError(e.message, { key: "input_jsonl_fpath", location: { file: path, line: e.lineNo }, hint: "every line must be one JSON object" });
    throw e;
  }
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
        const rcp = rcpOf(value);
        // A falsy input (`""`, `[]`, null) is no input: upstream overwrites it.
        const row = rcp && Object.hasOwn(rcp, "input") ? { ...value, responses_create_params: Object.fromEntries(Object.entries(rcp).filter(([k]) => k !== "input")) } : value;
        const rendered = applyPrompt(cfg, row, `${inputPath}:${lineNo}`);
        rendered.prompt_config_used = cfg.path;
        sink.write(`${pyJsonDumps(rendered)}\n`);
        count++;
      }
    } finally {
      await sink.end();
    }
  });
  return { rows: count, output: paths[0]!, promptPath: cfg.path };
}
