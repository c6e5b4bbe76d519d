/**
 * How each server process is started (D13, runtime.md §1.1, §2.2): built-ins re-run this binary
 * (`internal serve`, BUN_BE_BUN stripped); external servers run `<dir>/.venv/bin/python`,
 * `python_executable` or the entrypoint itself, from the server directory. Every child gets
 * upstream's env contract (D3) plus BUN_CONFIG_MAX_HTTP_REQUESTS (D16).
 */
import { sessionSecret } from "../http/session.ts";
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { processEnvCopy } from "../../env.ts";
import { ConfigError } from "../../errors.ts";

/** Kept here for existing importers; the state lives in gym-args.ts (cheap to load at start). */
export { gymArgsOfThisProcess, setGymArgs } from "./gym-args.ts";

/** The command that re-runs this program: the binary itself, or bun + src/main.ts from source. */
export function selfCommand(): string[] {
  // In the compiled binary modules live under Bun's virtual `$bunfs` root. Ask where this module
  // is, not where main.ts would be: bundled with main.ts, `new URL("../../main.ts")` leaves that root.
  const here = import.meta.dir;
  if (here.includes("$bunfs") || here.includes("~BUN")) return [process.execPath];
  return [process.execPath, Bun.fileURLToPath(new URL("../../main.ts", import.meta.url))];
}

/** A process to start. */
export interface SpawnSpec {
  argv: string[];
  cwd?: string;
  env: Record<string, string>;
}

/** The environment every child starts with. */
export function childEnv(vars: { configYaml: string; instance: string; maxHttpRequests: number; dict: Record<string, unknown>; extra?: Record<string, string> }): Record<string, string> {
  const env = processEnvCopy();
  delete env.BUN_BE_BUN;
  env.NEMO_GYM_CONFIG_DICT = vars.configYaml;
  env.NEMO_GYM_CONFIG_PATH = vars.instance;
  env.BUN_CONFIG_MAX_HTTP_REQUESTS = String(vars.maxHttpRequests);
  // D39: every server of this run signs its cookies with the run's random secret (never logged).
  env.GYM_SESSION_SECRET = sessionSecret();
  if (typeof vars.dict.uv_cache_dir === "string") env.UV_CACHE_DIR = vars.dict.uv_cache_dir;
  const lock = vars.dict.uv_lock_timeout_seconds;
  if (lock !== undefined && lock !== null) env.UV_LOCK_TIMEOUT = String(lock);
  return { ...env, ...vars.extra };
}

/**
 * Linux refuses a single environment string over 128 KiB (MAX_ARG_STRLEN, E2BIG). Built-ins then
 * receive the config over IPC instead; external servers cannot, so they get a clear error.
 */
export const ENV_VALUE_LIMIT = 120 * 1024;

/** Spec of a built-in server process (worker `reusePort` when the server has several; config over IPC when too big for env). */
export function builtinSpec(env: Record<string, string>, reusePort: boolean, configViaIpc = false): SpawnSpec {
  const e = { ...env };
  if (configViaIpc) delete e.NEMO_GYM_CONFIG_DICT;
  return { argv: [...selfCommand(), "internal", "serve", ...(reusePort ? ["--reuse-port"] : []), ...(configViaIpc ? ["--config-via-ipc"] : [])], env: e };
}

/** Spec of an external server: interpreter choice, cwd = server dir, PYTHONPATH prefixed for `.py`. */
export function externalSpec(name: string, dir: string, entrypoint: string, pythonExecutable: string, env: Record<string, string>): SpawnSpec {
  const size = Buffer.byteLength(env.NEMO_GYM_CONFIG_DICT ?? "");
  if (size > ENV_VALUE_LIMIT) {
    throw new ConfigError(`server '${name}': the config is ${size} bytes as YAML, too large for NEMO_GYM_CONFIG_DICT (Linux limits one environment value to 128 KiB)`, {
      hint: "shrink the config (move large inline values such as prompts into files), or use a built-in implementation",
    });
  }
  const script = isAbsolute(entrypoint) ? entrypoint : join(dir, entrypoint);
  if (!existsSync(script)) {
    throw new ConfigError(`server '${name}': entrypoint ${script} does not exist`, { key: `${name}.entrypoint`, hint: "fix the entrypoint, or use a built-in implementation" });
  }
  if (entrypoint.endsWith(".py")) {
    const venv = join(dir, ".venv", "bin", "python");
    const python = existsSync(venv) ? venv : pythonExecutable;
    const pythonPath = env.PYTHONPATH ? `${dir}:${env.PYTHONPATH}` : dir;
    return { argv: [python, script], cwd: dir, env: { ...env, PYTHONPATH: pythonPath } };
  }
  return { argv: [script], cwd: dir, env };
}
