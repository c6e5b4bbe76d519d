/**
 * `gym env test NAME` (upstream `environment/onboarding.py`): validate a manifest-backed workload,
 * then exercise its resources server's verifier fixture without starting services. A built-in
 * server exports its fixture as `resources_servers/<name>/tests/verifier_cases.jsonl` in a search
 * root and runs in this process (a fresh instance per call, driven through its HTTP handler); an
 * external Python server runs upstream's `nemo_gym.environment._verifier_runner` with its own
 * Python (`<server dir>/.venv/bin/python`, else `python3`), which exercises its `VERIFIER_FIXTURE`.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { resolvedLeaf } from "../config/child.ts";
import type { ServerInstance } from "../config/types.ts";
import type { BuiltinComponent } from "../components/registry.ts";
import { processEnvCopy } from "../env.ts";
import { ConfigError } from "../errors.ts";
import { createHandler } from "../runtime/http/http.ts";
import { serverPython } from "./unit-tests.ts";
import { validateWorkload, type ValidatedWorkload } from "./manifest-validate.ts";
import { exerciseVerifierFixture, VerifierFixtureError, type FixtureResult, type Observation } from "./verifier-fixture.ts";

/** The `--json` report of a passing fixture (upstream VerifierReport). */
export interface VerifierReport {
  name: string;
  kind: string;
  resources_server: string;
  manifest_path: string;
  fixture_path: string;
  cases: FixtureResult[];
}

/** What the caller supplies: the registry lookup (cli wires it) and the embedded root. */
export interface VerifierDeps {
  findBuiltin: (serverType: "resources_servers", implementation: string) => Promise<BuiltinComponent | undefined>;
  /** The embedded install root: fixtures there belong to the binary and are never rewritten. */
  embeddedRoot: string;
  /** Seconds an external Python runner may take. */
  deadlineSeconds?: number;
}

/** A workload whose verifier could not be exercised (setup, not a case). Exit 2 like upstream's ConfigError. */
export class EnvironmentOnboardingError extends ConfigError {
  constructor(message: string, hint?: string) {
    super(message, { code: "E_ONBOARDING", hint });
    this.name = "EnvironmentOnboardingError";
  }
}

/** Where the fixture contract puts a resources server's cases. */
export const FIXTURE_PATH = (impl: string) => `resources_servers/${impl}/tests/verifier_cases.jsonl`;

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function inside(path: string, dir: string): boolean {
  const rel = relative(real(dir), real(path));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** The resources-server instance of a validated workload. */
function resourcesInstance(w: ValidatedWorkload): ServerInstance {
  const name = w.composition.resources_instance;
  const inst = w.resolved.servers.find((s) => s.name === name && s.serverType === "resources_servers");
  if (!inst) throw new EnvironmentOnboardingError("The resolved workload has no resources server.", "the dataset-bearing agent's resources_server must name a resources_servers instance of the config");
  return inst;
}

/** Run the fixture of a built-in resources server in this process. */
async function runBuiltin(w: ValidatedWorkload, inst: ServerInstance, comp: BuiltinComponent, updateExpected: boolean, deps: VerifierDeps): Promise<VerifierReport> {
  const rel = FIXTURE_PATH(inst.implementation);
  const fixture = w.resolved.roots.map((r) => join(r, rel)).find((p) => existsSync(p));
  if (!fixture) {
    throw new EnvironmentOnboardingError(`Resources server '${inst.implementation}' exports no verifier fixture: ${rel} is in none of the search roots (${w.resolved.roots.join(", ")}).`, `write the cases (full_reward, zero_reward, malformed) to <search root>/${rel}`);
  }
  if (updateExpected && inside(fixture, deps.embeddedRoot)) {
    throw new EnvironmentOnboardingError(`Cannot update a verifier fixture embedded in the gym binary (${fixture}).`, `copy it to ./${rel} (a search root) and rerun with --update-expected`);
  }
  const leaf = resolvedLeaf(w.resolved.dict, inst);
  // Upstream builds a fresh server per call (server_factory): no state leaks from one case into the next.
  const observe = async (request: Record<string, unknown>): Promise<Observation> => {
    const app = await comp.create({ instanceName: inst.name, config: leaf, globalConfig: w.resolved.dict });
    try {
      const res = await createHandler(app)(new Request("http://127.0.0.1/verify", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) }));
      const text = await res.text();
      if (!res.ok) return { ok: false, error: `HTTP ${res.status}: ${text}` };
      try {
        return { ok: true, result: JSON.parse(text) as unknown };
      } catch {
        return { ok: false, error: `verify answered non-JSON: ${text.slice(0, 200)}` };
      }
    } finally {
      await app.close?.();
    }
  };
  const m = w.manifest;
  try {
    const cases = await exerciseVerifierFixture(fixture, observe, { rewardRange: m.reward.range, higherIsBetter: m.reward.higher_is_better, determinism: m.determinism ?? "unknown", updateExpected });
    return { name: m.name, kind: m.kind, resources_server: m.resources_server, manifest_path: w.report.manifest_path, fixture_path: fixture, cases };
  } catch (e) {
    if (e instanceof VerifierFixtureError) throw new VerifierFixtureError(`Verifier fixture for ${m.kind} '${m.name}' failed (${fixture}): ${e.message}`, e.hint ?? `fix the verifier or the case; \`gym env test ${m.name} --update-expected\` records observed rewards once every behavioural check passes`);
    throw e;
  }
}

/** The folder of an external resources server: the first root whose `resources_servers/<impl>` has requirements.txt or pyproject.toml. */
function externalServerDir(impl: string, roots: string[]): { root: string; dir: string } {
  for (const root of roots) {
    const dir = join(root, "resources_servers", impl);
    const markers = ["requirements.txt", "pyproject.toml"].filter((f) => existsSync(join(dir, f)));
    if (markers.length === 0) continue;
    if (markers.length > 1) throw new EnvironmentOnboardingError(`Resources server '${dir}' must use requirements.txt or pyproject.toml, not both.`);
    return { root, dir };
  }
  throw new EnvironmentOnboardingError(`Resources server '${impl}' was not found in a component root (${roots.join(", ")}).`, `it is not built into gym either; put it at <search root>/resources_servers/${impl}/ with requirements.txt`);
}

/**
 * gym's driver for a stdlib-only server (what `gym env init` writes): import the entry module,
 * call its module-level `verify(body)` on the request read from stdin, print the observation.
 * One process per call, so every call sees a fresh module (upstream's fresh server per case).
 */
const STDLIB_DRIVER = `
import asyncio, importlib.util, inspect, json, sys
app_path, server_dir = sys.argv[1], sys.argv[2]
sys.path[:0] = [server_dir]
request = json.loads(sys.stdin.read())
try:
    spec = importlib.util.spec_from_file_location("_gym_verifier_fixture_app", app_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.verify(request)
    if inspect.isawaitable(result):
        result = asyncio.run(result)
    out = {"ok": True, "result": result}
except Exception as error:
    out = {"ok": False, "error": f"{type(error).__name__}: {error}"}
sys.stdout.write(json.dumps(out))
`;

/** Run the fixture of an external server: upstream's runner for a VERIFIER_FIXTURE, else gym's stdlib driver. */
async function runExternal(w: ValidatedWorkload, inst: ServerInstance, updateExpected: boolean, deps: VerifierDeps): Promise<VerifierReport> {
  const { root, dir } = externalServerDir(inst.implementation, w.resolved.roots);
  const entrypoint = String(resolvedLeaf(w.resolved.dict, inst).entrypoint ?? "app.py");
  if (isAbsolute(entrypoint) || entrypoint.split(/[\\/]/).includes("..")) throw new EnvironmentOnboardingError(`Resources-server entrypoint must stay within 'resources_servers/${inst.implementation}': '${entrypoint}'`);
  const app = join(dir, entrypoint);
  if (!existsSync(app)) throw new EnvironmentOnboardingError(`Resources-server entrypoint was not found: ${app}`);
  if (!inside(app, dir)) throw new EnvironmentOnboardingError(`Resources-server entrypoint resolves outside '${dir}': ${app}`);
  const source = readFileSync(app, "utf8");
  if (/^(?:VERIFIER_FIXTURE\s*[:=]|from\s+\S+\s+import\s+[^\n]*\bVERIFIER_FIXTURE\b)/m.test(source)) return await runUpstreamRunner(w, inst, { root, dir, app }, updateExpected, deps);
  const fixture = join(dir, "tests", "verifier_cases.jsonl");
  if (!/^(?:async\s+)?def\s+verify\s*\(/m.test(source) || !existsSync(fixture)) {
    throw new EnvironmentOnboardingError(`Resources server '${inst.implementation}' must export VERIFIER_FIXTURE as a VerifierFixture (${app}), or define a module-level verify(body) with its cases in ${fixture}.`, "`gym env init --environment NAME` writes a server of the second kind; upstream's scaffold writes the first");
  }
  const python = serverPython(dir, "python3");
  const env = processEnvCopy();
  delete env.NEMO_GYM_CONFIG_DICT;
  delete env.NEMO_GYM_CONFIG_PATH;
  const limit = (deps.deadlineSeconds ?? 600) * 1000;
  const observe = async (request: Record<string, unknown>): Promise<Observation> => {
    const proc = Bun.spawn([python, "-c", STDLIB_DRIVER, app, dir], { cwd: dir, env, stdin: new TextEncoder().encode(JSON.stringify(request)), stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), limit);
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    try {
      return JSON.parse(out) as Observation;
    } catch {
      throw new EnvironmentOnboardingError(`${python} could not run the verifier of '${inst.implementation}' (exit ${code}): ${err.trim().split("\n").slice(-3).join(" ") || out.slice(0, 200)}`);
    }
  };
  const m = w.manifest;
  try {
    const cases = await exerciseVerifierFixture(fixture, observe, { rewardRange: m.reward.range, higherIsBetter: m.reward.higher_is_better, determinism: m.determinism ?? "unknown", updateExpected });
    return { name: m.name, kind: m.kind, resources_server: m.resources_server, manifest_path: w.report.manifest_path, fixture_path: fixture, cases };
  } catch (e) {
    if (e instanceof VerifierFixtureError) throw new VerifierFixtureError(`Verifier fixture for ${m.kind} '${m.name}' failed (${fixture}): ${e.message}`, e.hint);
    throw e;
  }
}

/** Run upstream's verifier runner in the external server's Python; its report comes back as JSON. */
async function runUpstreamRunner(w: ValidatedWorkload, inst: ServerInstance, at: { root: string; dir: string; app: string }, updateExpected: boolean, deps: VerifierDeps): Promise<VerifierReport> {
  const { root, dir, app } = at;
  const m = w.manifest;
  const spec = {
    name: m.name,
    kind: m.kind,
    resources_server: m.resources_server,
    manifest_path: w.report.manifest_path,
    app_path: real(app),
    component_root: real(root),
    server_dir: real(dir),
    bundled_component: false,
    reward_range: m.reward.range,
    higher_is_better: m.reward.higher_is_better,
    determinism: m.determinism ?? "unknown",
  };
  const tmp = mkdtempSync(join(tmpdir(), "gym-verifier-"));
  try {
    const requestPath = join(tmp, "request.json");
    const resultPath = join(tmp, "result.json");
    writeFileSync(requestPath, JSON.stringify({ spec, update_expected: updateExpected }));
    const python = serverPython(dir, "python3");
    const env = processEnvCopy();
    delete env.NEMO_GYM_CONFIG_DICT;
    delete env.NEMO_GYM_CONFIG_PATH;
    const argv = [python, "-m", "nemo_gym.environment._verifier_runner", "--request", requestPath, "--result", resultPath];
    let proc;
    try {
      proc = Bun.spawn(argv, { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
    } catch (e) {
      throw new EnvironmentOnboardingError(`Could not start ${python} for the verifier of '${inst.implementation}': ${(e as Error).message}`, `create ${join(dir, ".venv")} with nemo-gym installed (cd ${dir} && uv venv && uv pip install -r requirements.txt)`);
    }
    const limit = (deps.deadlineSeconds ?? 600) * 1000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill("SIGKILL");
    }, limit);
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    // The runner's own output is the user's to read (upstream sends it to stderr too).
    if (`${out}${err}`.trim()) process.stderr.write(`${out}${err}`);
    if (timedOut) throw new EnvironmentOnboardingError(`Verifier runner for '${inst.implementation}' did not finish within ${limit / 1000} s.`);
    if (!existsSync(resultPath)) {
      const noGym = /No module named ['"]?nemo_gym/.test(err);
      throw new EnvironmentOnboardingError(`Verifier runner exited with code ${code} without producing a result.${noGym ? ` ${python} cannot import nemo_gym.` : ""}`, `the fixture of an external (Python) resources server runs in its own environment: cd ${dir} && uv venv && uv pip install -r requirements.txt (nemo-gym included)`);
    }
    let result: { ok?: boolean; error?: string; report?: VerifierReport };
    try {
      result = JSON.parse(readFileSync(resultPath, "utf8")) as typeof result;
    } catch (e) {
      throw new EnvironmentOnboardingError(`Could not read verifier result: ${(e as Error).message}`);
    }
    if (!result || typeof result !== "object" || !result.ok) throw new VerifierFixtureError(result?.error ?? `Verifier runner failed with code ${code}.`);
    if (code !== 0) throw new EnvironmentOnboardingError(`Verifier runner exited with code ${code}.`);
    const r = result.report;
    if (!r || typeof r.name !== "string" || !Array.isArray(r.cases)) throw new EnvironmentOnboardingError("Verifier runner returned an invalid report.");
    return { name: r.name, kind: r.kind, resources_server: r.resources_server, manifest_path: r.manifest_path, fixture_path: r.fixture_path, cases: r.cases.map((c) => ({ name: c.name, kind: c.kind, observed_rewards: [...(c.observed_rewards ?? [])] })) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Validate the workload at `manifestPath`, then exercise its verifier fixture. */
export async function verifyWorkload(opts: { manifestPath: string; searchDirs?: string[]; updateExpected?: boolean; validated?: ValidatedWorkload }, deps: VerifierDeps): Promise<VerifierReport> {
  const w = opts.validated ?? (await validateWorkload({ manifestPath: opts.manifestPath, searchDirs: opts.searchDirs }));
  const inst = resourcesInstance(w);
  const comp = await deps.findBuiltin("resources_servers", inst.implementation);
  return comp ? await runBuiltin(w, inst, comp, opts.updateExpected === true, deps) : await runExternal(w, inst, opts.updateExpected === true, deps);
}
