/**
 * Prompt configs (components §6): `{user, system?}` YAML rendered with a Python-compatible
 * `str.format_map(row)` subset — `{name}` lookups, `{{`/`}}` escapes, Python `str()` of values —
 * into `responses_create_params.input`. Used by rollout collection (`--prompt-config`) and collate.
 */
import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../errors.ts";
import { resolveInRoots } from "../config/roots.ts";
import { pyStrRepr } from "../util/py-repr.ts";

/** A loaded prompt config. */
export interface PromptConfig {
  path: string;
  user: string;
  system?: string;
}

/** Python `str()` of a JSON value (JSON loses 1.0 vs 1: integral floats print as ints). */
export function pyStr(v: unknown, nested = false): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return nested ? pyStrRepr(v) : v;
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (Array.isArray(v)) return `[${v.map((x) => pyStr(x, true)).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyStrRepr(k)}: ${pyStr(x, true)}`)
    .join(", ")}}`;
}

/** `template.format_map(row)` for plain `{name}` fields; other field syntax is rejected explicitly. */
export function formatMap(template: string, row: Record<string, unknown>, where = "prompt"): string {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch === "{") {
      if (template[i + 1] === "{") {
        out += "{";
        i++;
        continue;
      }
      const end = template.indexOf("}", i);
      if (end < 0) throw new ConfigError(`${where}: Single '{' encountered in format string`);
      const field = template.slice(i + 1, end);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
        throw new ConfigError(`${where}: unsupported format field {${field}}; gym supports plain {name} fields (use {{ and }} for literal braces)`);
      }
      if (!Object.hasOwn(row, field)) {
        throw new ConfigError(`${where}: KeyError '${field}': the row has no field '${field}' (available fields: ${Object.keys(row).join(", ")})`);
      }
      out += pyStr(row[field]);
      i = end;
    } else if (ch === "}") {
      if (template[i + 1] === "}") {
        out += "}";
        i++;
        continue;
      }
      throw new ConfigError(`${where}: Single '}' encountered in format string`);
    } else out += ch;
  }
  return out;
}

/** Load a prompt config, resolving a relative path through the search roots. */
export function loadPromptConfig(path: string, roots: string[]): PromptConfig {
  const abs = resolveInRoots(path, roots);
  if (!existsSync(abs)) throw new ConfigError(`prompt config not found: ${path}`, { key: "prompt_config", hint: "check the path (relative paths resolve through the search roots)" });
  const doc = parseYaml(readFileSync(abs, "utf8")) as Record<string, unknown> | null;
  if (!doc || typeof doc.user !== "string") throw new ConfigError(`${abs}: a prompt config needs a string 'user' field`, { location: { file: abs } });
  if (doc.system !== undefined && typeof doc.system !== "string") throw new ConfigError(`${abs}: 'system' must be a string`, { location: { file: abs } });
  for (const k of Object.keys(doc)) if (k !== "user" && k !== "system") throw new ConfigError(`${abs}: unknown prompt config key '${k}' (allowed: user, system)`, { location: { file: abs } });
  return { path: abs, user: doc.user, system: doc.system as string | undefined };
}

/** Apply a prompt to a row: a copy with `responses_create_params.input` built from the template. */
export function applyPrompt(cfg: PromptConfig, row: Record<string, unknown>, where = "row"): Record<string, unknown> {
  const rcp = { ...((row.responses_create_params as Record<string, unknown> | undefined) ?? {}) };
  if (rcp.input !== undefined && rcp.input !== null && !(Array.isArray(rcp.input) && rcp.input.length === 0)) {
    throw new ConfigError(`${where}: a prompt config and a pre-filled responses_create_params.input are mutually exclusive`, { hint: "remove the input from the data or drop the prompt config" });
  }
  const input: { role: string; content: string }[] = [];
  if (cfg.system !== undefined) input.push({ role: "system", content: formatMap(cfg.system, row, `${where} (system prompt)`) });
  input.push({ role: "user", content: formatMap(cfg.user, row, `${where} (user prompt)`) });
  rcp.input = input;
  return { ...row, responses_create_params: rcp };
}

/** A row transform for the driver's materialization step. */
export async function promptTransform(path: string, roots: string[]): Promise<(row: Record<string, unknown>, lineNo: number) => Record<string, unknown>> {
  const cfg = loadPromptConfig(path, roots);
  return (row, lineNo) => applyPrompt(cfg, row, `input line ${lineNo}`);
}
