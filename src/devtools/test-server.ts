/**
 * `gym env test` for one resources server: the data checks (§6.6), the server's own unit tests
 * when it is external, the end-to-end example run with `scripted_model` (§12 item 13), and a
 * replay of the recorded example rollouts whose rewards must match.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerType } from "../config/types.ts";
import { dataChecks } from "./data-checks.ts";
import { exampleRun } from "./example-run.ts";
import { skip, type ServerReport } from "./check.ts";
import { unitTests } from "./unit-tests.ts";

/** Settings shared by every server of one `gym env test`. */
export interface TestSettings {
  searchDirs: string[];
  overrides: string[];
  isBuiltin: (t: ServerType, impl: string) => boolean;
  /** Run the data checks (upstream `should_validate_data`). */
  validateData: boolean;
  python: string;
  deadlineMs: number;
}

/** The unit tests of an agent or model directory (upstream runs their pytest too; they have no data checks). */
export async function testOtherServer(type: "responses_api_agents" | "responses_api_models", name: string, dir: string, s: TestSettings): Promise<ServerReport> {
  const started = performance.now();
  const builtin = s.isBuiltin(type, name);
  const checks = [await unitTests(dir, { builtin, python: s.python, deadlineMs: s.deadlineMs })];
  return { entrypoint: `${type}/${name}`, dir, builtin, ok: checks.every((c) => c.status !== "fail"), seconds: Math.round((performance.now() - started) / 10) / 100, checks };
}

/** Every check of the resources server `name` found in `dir`. */
export async function testServer(name: string, dir: string, s: TestSettings): Promise<ServerReport> {
  const started = performance.now();
  const builtin = s.isBuiltin("resources_servers", name);
  const checks = s.validateData ? dataChecks(dir, name) : [skip("data checks", "should_validate_data=false")];
  checks.push(await unitTests(dir, { builtin, python: s.python, deadlineMs: s.deadlineMs }));
  const run = { name: selectorFor(name, dir), searchDirs: s.searchDirs, overrides: s.overrides, isBuiltin: s.isBuiltin, deadlineMs: s.deadlineMs };
  checks.push(await exampleRun(run));
  const recorded = join(dir, "data", "example_rollouts.jsonl");
  checks.push(existsSync(recorded) ? await exampleRun({ ...run, replay: recorded }) : skip("replay", `no ${recorded} to replay`));
  return {
    entrypoint: `resources_servers/${name}`,
    dir,
    builtin,
    ok: checks.every((c) => c.status !== "fail"),
    seconds: Math.round((performance.now() - started) / 10) / 100,
    checks,
  };
}

/**
 * The `--resources-server` value to run: NAME when configs/NAME.yaml exists, else NAME/FLAVOR for the
 * flavor whose agent recorded data/example_rollouts.jsonl (upstream servers such as format_verification
 * ship only flavored configs), else the first flavor.
 */
function selectorFor(name: string, dir: string): string {
  const configs = join(dir, "configs");
  if (existsSync(join(configs, `${name}.yaml`)) || !existsSync(configs)) return name;
  const flavors = readdirSync(configs).filter((f) => /\.ya?ml$/.test(f)).sort();
  if (flavors.length === 0) return name;
  let agent = "";
  try {
    const first = readFileSync(join(dir, "data", "example_rollouts.jsonl"), "utf8").split("\n").find((l) => l.trim() !== "");
    agent = first ? String((JSON.parse(first) as { agent_ref?: { name?: string } }).agent_ref?.name ?? "") : "";
  } catch {
    agent = "";
  }
  const byAgent = agent ? flavors.find((f) => new RegExp(`^${agent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:`, "m").test(readFileSync(join(configs, f), "utf8"))) : undefined;
  return `${name}/${(byAgent ?? flavors[0]!).replace(/\.ya?ml$/, "")}`;
}

const MARK = { pass: "✓", fail: "✗", skip: "-" } as const;

/** The human report: one block per server, then a summary line. */
export function renderReport(reports: ServerReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`${r.ok ? "✓" : "✗"} ${r.entrypoint}${r.builtin ? " (built-in)" : ""}  ${r.seconds.toFixed(2)} s  ${r.dir}`);
    for (const c of r.checks) {
      const [first, ...more] = c.detail.split("\n");
      out.push(`    ${MARK[c.status]} ${c.name}: ${first}`);
      for (const m of more) out.push(`        ${m}`);
      if (c.status === "fail" && c.hint) out.push(`        fix: ${c.hint}`);
    }
  }
  const failed = reports.filter((r) => !r.ok);
  out.push("");
  out.push(`${reports.length - failed.length} of ${reports.length} servers passed${failed.length ? `; failed: ${failed.map((r) => r.entrypoint).join(", ")}` : ""}`);
  const first = failed[0]?.entrypoint;
  if (first) out.push(`Re-run one with: gym env test ${first.startsWith("resources_servers/") ? `--resources-server ${first.split("/").pop()}` : `+entrypoint=${first}`}`);
  return `${out.join("\n")}\n`;
}
