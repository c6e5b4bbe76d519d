/**
 * Compose a submit config the way Hydra would (spec submit.md §1, §2, §2.1): load the YAML with its
 * `defaults:` list (config groups from sibling directories), apply CLI overrides (a group override
 * such as `compute=other` swaps the group file), resolve interpolations, then drop the top-level
 * `_` scratch keys. `driver.policy_host` keeps `${oc.env:…}` unresolved (spec default §13.1).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { applyOverride, parseOverride } from "../config/overrides.ts";
import { resolveInterpolations } from "../config/interpolate.ts";
import { ConfigError } from "../errors.ts";

type Dict = Record<string, unknown>;

function isMap(v: unknown): v is Dict {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mergeInto(base: Dict, over: Dict): Dict {
  for (const [k, v] of Object.entries(over)) {
    const b = base[k];
    base[k] = isMap(b) && isMap(v) ? mergeInto({ ...b }, v) : structuredClone(v);
  }
  return base;
}

function readYamlMap(file: string, what: string): Dict {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ConfigError(`${what} '${file}' is not valid YAML: ${(e as Error).message}`, { code: "E_SUBMIT_CONFIG" });
  }
  if (doc === null || doc === undefined) return {};
  if (!isMap(doc)) throw new ConfigError(`${what} '${file}' must hold a mapping at the top level`, { code: "E_SUBMIT_CONFIG" });
  return doc;
}

/** Check the `--config` path before anything else (§2). Returns the absolute path. */
export function checkConfigPath(path: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, path);
  if (!existsSync(abs)) throw new ConfigError(`Submit config '${path}' was not found`, { code: "E_SUBMIT_CONFIG", hint: "pass the path of a submit YAML with -c/--config" });
  if (statSync(abs).isDirectory()) throw new ConfigError(`Submit config '${path}' is a directory, not a file`, { code: "E_SUBMIT_CONFIG" });
  return abs;
}

interface DefaultsEntry {
  group: string | null;
  option: string;
}

function parseDefaults(raw: unknown, file: string): { entries: DefaultsEntry[]; selfIndex: number } {
  if (raw === undefined) return { entries: [], selfIndex: 0 };
  if (!Array.isArray(raw)) throw new ConfigError(`${file}: defaults must be a list`, { code: "E_SUBMIT_CONFIG", key: "defaults" });
  const entries: DefaultsEntry[] = [];
  let selfIndex = -1;
  for (const item of raw) {
    if (item === "_self_") selfIndex = entries.length;
    else if (typeof item === "string") entries.push({ group: null, option: item });
    else if (isMap(item) && Object.keys(item).length === 1) {
      const [group, option] = Object.entries(item)[0]!;
      entries.push({ group, option: String(option) });
    } else throw new ConfigError(`${file}: defaults entries must be 'name', '{group: option}' or '_self_', got ${JSON.stringify(item)}`, { code: "E_SUBMIT_CONFIG", key: "defaults" });
  }
  // Hydra: without `_self_` the primary config comes last (it wins).
  return { entries, selfIndex: selfIndex < 0 ? entries.length : selfIndex };
}

/** Compose the submit config at `absPath` with `overrides`; returns the dict ready for validation. */
export function composeSubmit(absPath: string, overrides: string[], lookupEnv: (n: string) => string | undefined): Dict {
  const primary = readYamlMap(absPath, "Submit config");
  const { entries, selfIndex } = parseDefaults(primary.defaults, absPath);
  delete primary.defaults;

  const rest: string[] = [];
  for (const tok of overrides) {
    const m = /^([A-Za-z_][\w-]*)=([^=]+)$/.exec(tok);
    const entry = m ? entries.find((e) => e.group === m[1]) : undefined;
    if (entry && m) entry.option = m[2]!;
    else rest.push(tok);
  }

  const base = dirname(absPath);
  let dict: Dict = {};
  entries.forEach((e, i) => {
    if (i === selfIndex) dict = mergeInto(dict, primary);
    const file = e.group === null ? join(base, `${e.option}.yaml`) : join(base, e.group, `${e.option}.yaml`);
    if (!existsSync(file)) {
      throw new ConfigError(`Submit config '${absPath}': defaults entry ${e.group ? `${e.group}: ${e.option}` : e.option} not found (looked for '${file}')`, { code: "E_SUBMIT_CONFIG" });
    }
    const layer = readYamlMap(file, "Config group file");
    dict = mergeInto(dict, e.group === null ? layer : { [e.group]: layer });
  });
  if (selfIndex >= entries.length) dict = mergeInto(dict, primary);

  for (const tok of rest) {
    const scratch = /^\+\+?(_[^.=]*)/.exec(tok);
    if (scratch) {
      throw new ConfigError(`Refusing override '${tok.split("=")[0]}=...': scratch namespace '${scratch[1]}' must be fully defined in the config file`, { code: "E_SUBMIT_CONFIG" });
    }
    applyOverride(dict, parseOverride(tok));
  }

  // Spec default §13.1: `${oc.env:…}` in policy_host resolves on the driver node, not here.
  // The injected policy_base_url carries it too, so a re-loaded resolved-config.yaml keeps it as well.
  const keep = (v: unknown) => (typeof v === "string" ? v.replace(/(?<!\\)\$\{oc\.env:/g, "\\${oc.env:") : v);
  const driver = dict.driver;
  if (isMap(driver)) {
    if (typeof driver.policy_host === "string") driver.policy_host = keep(driver.policy_host);
    if (isMap(driver.benchmarks)) {
      for (const b of Object.values(driver.benchmarks)) if (isMap(b) && isMap(b.run) && "policy_base_url" in b.run) b.run.policy_base_url = keep(b.run.policy_base_url);
    }
  }

  const resolved = resolveInterpolations(dict, { env: lookupEnv }) as Dict;
  for (const k of Object.keys(resolved)) if (k.startsWith("_")) delete resolved[k];
  return resolved;
}
