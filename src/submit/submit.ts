/**
 * The `gym eval submit` pipeline (spec submit.md §1): compose → validate → (resolve-only) →
 * pre-checks → render → (dry-run) → submit-only checks → stage → copy → sbatch → record → report.
 * Nothing here starts anything locally except `sbatch`/`ssh`/`cp`.
 */
import { maskSecretValues } from "../config/redact.ts";
import { maskUrlSecrets } from "../util/url-secrets.ts";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { envVar, readEnv } from "../env.ts";
import { ConfigError, RuntimeError } from "../errors.ts";
import { composeSubmit, checkConfigPath } from "./compose.ts";
import { layoutOf } from "./deployment.ts";
import { executorPrechecks } from "./prechecks.ts";
import { buildRecord, currentUser, newGymJobId, resolvedYaml, type SubmissionRecord } from "./records.ts";
import { collectorYaml } from "./render/otel.ts";
import { renderScript } from "./render/script.ts";
import { checkRunConfigs } from "./run-config.ts";
import { q } from "./render/shell.ts";
import { parseSbatchOutput, sbatchProgram } from "./slurm.ts";
import { isLocalHost, localConnection, sshConnection, type Connection } from "./ssh.ts";
import { stageRun, type StagedBenchmark } from "./stage.ts";
import { linkStagedBinary } from "./binary-cache.ts";
import { validateSubmit, type Validated } from "./validate.ts";
import type { RenderContext } from "./render/context.ts";

/** Options of one `gym eval submit`. */
export interface SubmitOptions {
  configPath: string;
  overrides: string[];
  dryRun: boolean;
  resolveOnly: boolean;
  json: boolean;
  cwd?: string;
  out: (text: string) => void;
  warn: (text: string) => void;
  /** Reports a failure line (the CLI prefixes `error:`, D31). */
  error?: (text: string) => void;
  /** Opens the SSH connection (tests pass ssh options; default: sshConnection). */
  connect?: (host: string) => Promise<Connection>;
}

/** Compose and validate (shared by every mode). */
export function loadSubmit(configPath: string, overrides: string[], cwd = process.cwd()): Validated {
  const abs = checkConfigPath(configPath, cwd);
  const dict = composeSubmit(abs, overrides, envVar);
  return validateSubmit(dict, configPath, { lookupEnv: envVar });
}

/** Rendered scripts (and collector configs) of every benchmark. */
export function renderAll(v: Validated, gymJobId: string, runDir: string): StagedBenchmark[] {
  const out: StagedBenchmark[] = [];
  const layout = layoutOf(v.config);
  for (const name of Object.keys(v.config.driver.benchmarks)) {
    const script = renderScript(v.config, v.hostValues, { gymJobId, runDir }, name);
    let collector: string | null = null;
    if (v.config.otel.enabled) {
      const ctx = { cfg: v.config, layout, gymJobId, runDir, benchDir: `${runDir}/${name}`, benchName: name } as RenderContext;
      collector = collectorYaml(ctx);
    }
    out.push({ name, script, collectorYaml: collector });
  }
  return out;
}

function rule(): string {
  return "=".repeat(60);
}

/** Run the pipeline; returns the exit code. */
export async function runSubmit(o: SubmitOptions): Promise<number> {
  const cwd = o.cwd ?? process.cwd();
  o.warn("gym eval submit is experimental: check the rendered scripts (--dry-run) before relying on them.");
  const v = loadSubmit(o.configPath, o.overrides, cwd);
  for (const w of v.warnings) o.warn(w);
  if (o.resolveOnly) {
    o.out(o.json ? `${JSON.stringify(v.config, null, 2)}\n` : resolvedYaml(v.config));
    return 0;
  }
  executorPrechecks(v.config, envVar);
  const [cluster, compute] = Object.entries(v.config.compute)[0]!;
  const local = isLocalHost(compute.hostname);
  for (const note of await checkRunConfigs(v.config, { remote: !local })) o.warn(note);
  const gymJobId = newGymJobId();
  if (!local && !v.config.job.output_path.startsWith("/")) {
    throw new ConfigError(`job.output_path '${v.config.job.output_path}' must be an absolute path on '${compute.hostname}' when submitting over SSH`, { code: "E_SUBMIT_CONFIG", hint: "set job.output_path to an absolute path on the cluster's shared filesystem" });
  }
  const outputPath = local ? resolve(cwd, v.config.job.output_path) : v.config.job.output_path;
  const runDir = `${outputPath.replace(/\/+$/, "")}/${gymJobId}`;
  const staged = renderAll(v, gymJobId, runDir);

  if (o.dryRun) {
    // D39: the printed scripts show `host:NAME` references, never the values a real submit bakes into job.sh.
    const refs = Object.fromEntries(Object.keys(v.hostValues).map((k) => [k, `host:${k}`]));
    const shown = renderAll({ ...v, hostValues: refs }, gymJobId, runDir);
    const lines = [`[dry-run] remote run dir: ${runDir}`];
    for (const b of shown) {
      lines.push(rule(), `[dry-run] sbatch script for benchmark: ${b.name}`, rule(), b.script.replace(/\n$/, ""));
      if (b.collectorYaml !== null) lines.push(rule(), `[dry-run] otel/collector.yaml for benchmark: ${b.name}`, rule(), b.collectorYaml.replace(/\n$/, ""));
    }
    o.out(maskUrlSecrets(maskSecretValues(`${lines.join("\n")}\n`, Object.values(v.hostValues))));
    return 0;
  }

  // Submit-only checks: forwarded variables are present (their values go over stdin only).
  const secrets: Record<string, string> = {};
  if (v.config.otel.enabled) secrets[v.config.otel.token_env] = envVar(v.config.otel.token_env) ?? "";
  const missing: string[] = [];
  for (const name of compute.forward_env) {
    const val = envVar(name);
    if (val === undefined) missing.push(name);
    else secrets[name] = val;
  }
  if (missing.length > 0) {
    throw new ConfigError(`compute.${cluster}.forward_env names ${missing.map((m) => `'${m}'`).join(", ")}, which ${missing.length === 1 ? "is" : "are"} not set in the submitting shell's environment`, {
      code: "E_SUBMIT_CONFIG",
      hint: "export them before submitting, or remove them from forward_env",
    });
  }

  const conn: Connection = local ? localConnection() : await (o.connect ?? sshConnection)(compute.hostname!);
  let stagingDir: string | undefined;
  try {
    await checkMounts(conn, v);
    stagingDir = stageRun(staged);
    await conn.copyTree(stagingDir, runDir);
    await linkStagedBinary(conn, outputPath, runDir);
    const names = staged.map((b) => b.name);
    const r = await conn.run(sbatchProgram(runDir, names, secrets), "sbatch");
    const results = parseSbatchOutput(r.stdout, names);
    const record = buildRecord({
      gymJobId,
      runDir,
      cluster,
      hostname: local ? null : compute.hostname,
      user: currentUser(),
      benchmarks: names.map((n) => ({ benchmark: n, job_dir: `${runDir}/${n}`, job_id: results[n]!.jobId, error: results[n]!.error })),
    });
    await persist(conn, v, record);
    report(o, record);
    const failed = record.benchmarks.filter((b) => b.job_id === null).length;
    if (failed > 0) {
      (o.error ?? o.warn)(`${failed} benchmark(s) failed to submit`);
      return 1;
    }
    return 0;
  } finally {
    if (stagingDir) rmSync(stagingDir, { recursive: true, force: true });
    await conn.close();
  }
}

async function checkMounts(conn: Connection, v: Validated): Promise<void> {
  const entries: [string, string][] = [];
  const srcOf = (m: string) => m.split(":")[0]!;
  for (const m of v.config.driver.mounts) entries.push(["driver", srcOf(m)]);
  for (const [name, s] of Object.entries(v.config.services)) {
    for (const m of s.mounts) entries.push([`services.${name}`, srcOf(m)]);
    if (s.type === "vllm_pd") for (const role of ["prefill", "decode"] as const) for (const m of s[role].mounts) entries.push([`services.${name}.${role}`, srcOf(m)]);
  }
  if (entries.length === 0) return;
  const program = entries.map(([, src]) => `test -e ${q(src)} || echo ${q(`__GYM_MISSING:${src}`)}`).join("\n");
  const r = await conn.run(`${program}\n`, "mount check");
  const gone = new Set(r.stdout.split("\n").filter((l) => l.startsWith("__GYM_MISSING:")).map((l) => l.slice("__GYM_MISSING:".length)));
  const bad = entries.filter(([, src]) => gone.has(src));
  if (bad.length > 0) {
    throw new ConfigError(`Mount src paths do not exist:\n${bad.map(([label, src]) => `  ${label}: '${src}'`).join("\n")}`, { code: "E_SUBMIT_MOUNTS", hint: "create them on the cluster or fix the mounts" });
  }
}

async function persist(conn: Connection, v: Validated, record: SubmissionRecord): Promise<void> {
  const json = `${JSON.stringify(record, null, 2)}\n`;
  try {
    const env = readEnv();
    const dir = join(env.xdgCacheHome ?? join(homedir(), ".cache"), "nemo-gym", "jobs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${record.gym_job_id}.json`), json);
  } catch (e) {
    process.stderr.write(`note: could not write the local record copy: ${(e as Error).message}\n`);
  }
  try {
    await conn.writeFile(`${record.run_dir}/resolved-config.yaml`, resolvedYaml(v.config));
    await conn.writeFile(`${record.run_dir}/gym-job.json`, json);
  } catch (e) {
    const queued = record.benchmarks.filter((b) => b.job_id !== null).map((b) => `${b.benchmark}=${b.job_id}`).join(", ");
    throw new RuntimeError(`Submitted jobs but could not write the manifest/resolved config under ${record.run_dir}: ${(e as Error).message}. Already queued: ${queued || "none"}. Record these by hand before cancelling or resubmitting.`, { code: "E_SUBMIT_RECORD" });
  }
}

function report(o: SubmitOptions, record: SubmissionRecord): void {
  if (o.json) {
    o.out(`${JSON.stringify(record, null, 2)}\n`);
    return;
  }
  const lines = [`Run directory: ${record.run_dir}`];
  for (const b of record.benchmarks) lines.push(b.job_id !== null ? `submitted ${b.benchmark} → Slurm job ${b.job_id}` : `failed ${b.benchmark}: ${b.error}`);
  o.out(`${lines.join("\n")}\n`);
}
