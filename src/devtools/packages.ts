/**
 * `gym env packages` (upstream `ng_pip_list`, cli-config §2.4): the packages of an external
 * server's venv via `uv pip list`, or, when `uv` is not installed, `<venv>/bin/python -m pip list`
 * (said on stderr). Built-in servers have no venv.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { processEnvCopy } from "../env.ts";

/** What to list. */
export interface PackagesRequest {
  /** Server directory. */
  dir: string;
  format?: string;
  outdated: boolean;
}

/** The command to run, or undefined when the venv is missing. */
export function packagesCommand(req: PackagesRequest, which: (cmd: string) => string | null = Bun.which): { argv: string[]; viaPip: boolean; venv: string } | undefined {
  const venv = join(req.dir, ".venv");
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) return undefined;
  const extra = [...(req.format ? ["--format", req.format] : []), ...(req.outdated ? ["--outdated"] : [])];
  const uv = which("uv");
  if (uv) return { argv: [uv, "pip", "list", "--python", python, ...extra], viaPip: false, venv };
  return { argv: [python, "-m", "pip", "list", ...extra], viaPip: true, venv };
}

/** Run the listing with stdout/stderr passed through; returns its exit code. */
export async function runPackages(argv: string[], venv: string, deadlineMs: number): Promise<number> {
  const env = processEnvCopy();
  env.VIRTUAL_ENV = venv;
  const proc = Bun.spawn(argv, { env, stdout: "inherit", stderr: "inherit" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), deadlineMs);
  const code = await proc.exited;
  clearTimeout(timer);
  return code;
}
