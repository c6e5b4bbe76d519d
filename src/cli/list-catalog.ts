/**
 * Shared machinery of `gym list <kind>` and `gym search` (spec cli-config §2.4): the catalog
 * reads only `key=value` tokens (no config pipeline, §2.5), prints a table for humans or exactly
 * one JSON value on stdout with `--json`.
 */
import { realpathSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { embeddedRoot } from "../assets/embedded.ts";
import { KIND_COMMAND, type CatalogEntry, type CatalogKind } from "../config/catalog.ts";
import { EXTERNAL_ROOT, externalDetails } from "../config/external-rows.ts";
import { searchRoots } from "../config/roots.ts";
import { log } from "../log.ts";
import type { GymArgDef, ParsedFlags } from "./_command.ts";
import { searchDirFlag } from "./_flags.ts";

/** Flags every catalog command takes. */
export const catalogFlags: Record<string, GymArgDef> = {
  json: { type: "boolean", description: "Print one JSON value (array, or object for NAME) on stdout and nothing else" },
  "search-dir": searchDirFlag,
};

/** The catalog keys of §2.5 read from `key=value` tokens (leading `+` dropped, YAML scalar typing). */
export function catalogOverrides(tokens: string[]): Record<string, unknown> {
  const known = new Set(["json", "query", "component_name", "catalog_kind", "domain", "modality", "licensing", "status", "lifecycle", "verbose"]);
  const out: Record<string, unknown> = {};
  for (const tok of tokens) {
    const eq = tok.indexOf("=");
    if (eq < 0) continue;
    const key = tok.slice(0, eq).replace(/^\++/, "");
    if (!known.has(key)) {
      log.warn(`ignoring override '${tok}': catalog commands read only ${[...known].join(", ")}`);
      continue;
    }
    const raw = tok.slice(eq + 1);
    let v: unknown = raw;
    try {
      v = parseYaml(raw);
    } catch {
      // Not a YAML scalar: keep the text.
    }
    out[key] = v;
  }
  return out;
}

/** The search roots of this command (D5: --search-dir replaces NEMO_GYM_EXTRA_ROOTS). */
export async function commandRoots(flags: ParsedFlags): Promise<{ roots: string[]; embedded: string }> {
  const dirs = flags["search-dir"];
  const searchDirs = Array.isArray(dirs) ? dirs : typeof dirs === "string" ? [dirs] : [];
  const roots = await searchRoots({ searchDirs });
  let embedded = await embeddedRoot();
  try {
    embedded = realpathSync(embedded);
  } catch {
    // Keep the unresolved path.
  }
  return { roots, embedded };
}

/** JSON shape of one row: benchmark-only fields only on benchmarks. */
export function entryJson(e: CatalogEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { name: e.name, kind: e.kind, domain: e.domain, description: e.description, license: e.license, verified: e.verified };
  if (e.kind === "benchmark") {
    out.agent = e.agent;
    out.num_repeats = e.num_repeats;
  }
  if (e.kind === "environment" || e.kind === "benchmark") {
    // Upstream's catalog payload fields (null on legacy rows).
    const m = e.manifest;
    out.status = m?.status ?? "no-manifest";
    out.version = m?.version ?? null;
    out.integration_profile = m?.integration_profile ?? null;
    out.modality = m?.modality ?? null;
    out.licensing = m?.licensing ?? null;
    out.lifecycle = m?.lifecycle ?? null;
    if (m?.manifest_path) out.manifest = m.manifest_path;
    if (m?.manifest_error) out.manifest_error = m.manifest_error;
  }
  out.path = e.path;
  out.root = e.root;
  out.builtin = e.root !== EXTERNAL_ROOT;
  const ext = externalDetails(e);
  if (ext) out.external_recipe = ext.recipe;
  if (e.error !== null) out.error = e.error;
  return out;
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** A plain-text table of rows: NAME, DOMAIN, DESCRIPTION, plus KIND / AGENT / REPEATS / ROOT when they say something. */
export function renderTable(rows: CatalogEntry[], embedded: string, extra?: { values: Record<string, unknown>[]; columns: [string, string][] }): string {
  const kinds = new Set(rows.map((r) => r.kind));
  const cols: [string, (e: CatalogEntry) => string][] = [["NAME", (e) => e.name]];
  if (kinds.size > 1) cols.push(["KIND", (e) => e.kind]);
  // The environment catalog's manifest columns; `gym list benchmarks` (detail columns) has a STATUS of its own.
  const bundles = rows.some((r) => r.kind === "environment" || r.kind === "benchmark");
  if (bundles && !extra) {
    cols.push(["STATUS", (e) => e.manifest?.status ?? (e.kind === "environment" || e.kind === "benchmark" ? "no-manifest" : "-")]);
    if (rows.some((r) => r.manifest?.lifecycle)) cols.push(["LIFECYCLE", (e) => e.manifest?.lifecycle ?? ""]);
  }
  cols.push(["DOMAIN", (e) => e.domain ?? "-"]);
  if (kinds.has("benchmark")) {
    cols.push(["AGENT", (e) => e.agent ?? "-"]);
    cols.push(["REPEATS", (e) => (e.num_repeats === null ? "-" : String(e.num_repeats))]);
  }
  for (const [header, key] of extra?.columns ?? []) {
    cols.push([header, (e) => {
      const v = extra!.values[rows.indexOf(e)]?.[key];
      return v === null || v === undefined ? "-" : clip(String(v), 60);
    }]);
  }
  if (kinds.has("resources_server")) cols.push(["VERIFIED", (e) => (e.verified ? "yes" : "-")]);
  // Rows with detail columns are wide already: `gym list <kind> NAME` shows the description.
  if (!extra) cols.push(["DESCRIPTION", (e) => clip(e.error !== null ? `(unreadable: ${e.error})` : (e.description ?? "-").replace(/\s+/g, " "), 72)]);
  if (rows.some((r) => r.root !== embedded)) cols.push(["ROOT", (e) => (e.root === embedded ? "" : e.root)]);
  const cells = rows.map((r) => cols.map(([, f]) => f(r)));
  const widths = cols.map(([h], i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(cols.map(([h]) => h)), ...cells.map(line)].join("\n");
}

/** Human rendering of one inspected row. */
export function renderEntry(e: CatalogEntry, embedded: string, extra?: Record<string, unknown>): string {
  const lines: [string, string][] = [
    ["name", e.name],
    ["kind", e.kind],
    ["domain", e.domain ?? "-"],
    ["description", e.description ?? "-"],
    ["license", e.license ?? "-"],
    ["verified", e.verified === null ? "-" : e.verified ? "yes" : "no"],
  ];
  if (e.kind === "benchmark") {
    lines.push(["agent", e.agent ?? "-"]);
    lines.push(["num_repeats", e.num_repeats === null ? "-" : String(e.num_repeats)]);
  }
  if (e.kind === "environment" || e.kind === "benchmark") {
    const m = e.manifest;
    lines.push(["status", m?.status ?? "no-manifest"]);
    if (m?.manifest_path) lines.push(["manifest", m.manifest_path]);
    for (const [k, v] of [["version", m?.version], ["profile", m?.integration_profile], ["modality", m?.modality], ["licensing", m?.licensing], ["lifecycle", m?.lifecycle]] as const) if (v) lines.push([k, v]);
    if (m?.manifest_error) lines.push(["manifest error", m.manifest_error]);
  }
  for (const [k, v] of Object.entries(extra ?? {})) lines.push([k, v === null || v === undefined ? "-" : String(v)]);
  const ext = externalDetails(e);
  if (ext) lines.push(["external", ext.message]);
  else lines.push(["config", e.path]);
  lines.push(["root", e.root === embedded ? `${e.root} (embedded)` : e.root]);
  if (e.error !== null) lines.push(["error", e.error]);
  const w = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n");
}

/** Plural noun of a kind selection for `No <type> found.` messages. */
export function pluralNoun(kinds: readonly CatalogKind[]): string {
  return KIND_COMMAND[kinds[0]!].replace("-", " ");
}

/** Write one line (or block) of data to stdout. */
export function printOut(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}
