/**
 * An external server's own unit tests (upstream runs `pytest` in the server's venv): with
 * `<dir>/.venv/bin/python` or `python_executable`, `-m pytest` when pytest is importable, else
 * `-m unittest discover -s tests`. Built-in servers have no tests/ here: their TypeScript tests
 * ship with gym's source and run under `gym dev test`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { processEnvCopy } from "../env.ts";
import { fail, pass, skip, type Check } from "./check.ts";

const CHECK = "unit tests";

/** The interpreter gym would start the server with (D13): the server's venv, else `python`. */
export function serverPython(dir: string, python: string): string {
  const venv = join(dir, ".venv", "bin", "python");
  return existsSync(venv) ? venv : python;
}

async function run(argv: string[], cwd: string, env: Record<string, string>, deadlineMs: number): Promise<{ code: number; output: string; timedOut: boolean }> {
  const proc = Bun.spawn(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, deadlineMs);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, output: `${out}${err}`, timedOut };
}

/** Run `<dir>/tests` with the server's Python; a skip when there is nothing to run. */
export async function unitTests(dir: string, opts: { builtin: boolean; python: string; deadlineMs: number }): Promise<Check> {
  if (opts.builtin) return skip(CHECK, "built-in server: its tests are part of gym's own suite (`gym dev test`)");
  if (!existsSync(join(dir, "tests"))) return skip(CHECK, `no tests/ directory in ${dir}`);
  const python = serverPython(dir, opts.python);
  if (!existsSync(python) && !Bun.which(python)) {
    return fail(CHECK, `no Python to run ${join(dir, "tests")}: neither ${join(dir, ".venv", "bin", "python")} nor python_executable '${opts.python}' exists`, "create the server's .venv, or set +python_executable=/path/to/python");
  }
  const env = processEnvCopy();
  delete env.NEMO_GYM_CONFIG_DICT;
  delete env.NEMO_GYM_CONFIG_PATH;
  // Upstream's generated tests import `resources_servers.<name>…`: the project root goes on PYTHONPATH too.
  env.PYTHONPATH = [dir, dirname(dirname(dir)), env.PYTHONPATH].filter((p) => p).join(":");
  const probe = await run([python, "-c", "import pytest"], dir, env, 30_000);
  const argv = probe.code === 0 ? [python, "-m", "pytest", "-q"] : [python, "-m", "unittest", "discover", "-s", "tests"];
  const r = await run(argv, dir, env, opts.deadlineMs);
  const tail = r.output.trim().split("\n").slice(-15).join("\n");
  if (r.timedOut) return fail(CHECK, `\`${argv.join(" ")}\` did not finish within ${opts.deadlineMs / 1000} s`, `run it yourself in ${dir}`);
  // pytest exit 5 = no tests collected (upstream counts that as "tests missing").
  if (r.code !== 0) return fail(CHECK, `\`${argv.slice(1).join(" ")}\` exited ${r.code}${r.code === 5 ? " (no tests collected)" : ""}:\n${tail}`, `run \`cd ${dir} && ${argv.join(" ")}\` for the details`);
  return pass(CHECK, `${argv.slice(1).join(" ")} passed (${python})`);
}
