/**
 * D16: Bun caps outbound `fetch` at 256 in flight unless `BUN_CONFIG_MAX_HTTP_REQUESTS` is in
 * the environment when the process starts, so a driver that needs more re-spawns itself with the
 * variable set. The copy exits when its parent dies (kill -9 of the parent must not leave a
 * second writer behind, D22), and the parent forwards SIGINT/SIGTERM and the exit status.
 */
import { processEnvCopy, readEnv } from "../env.ts";
import { log } from "../log.ts";
import { gymArgsOfThisProcess, selfCommand } from "../runtime/process/spawn.ts";

/** argv that re-runs this same gym command (a legacy `ng_*` alias already mapped to its gym tokens). */
export function sameCommandLine(): string[] {
  return [...selfCommand(), ...gymArgsOfThisProcess()];
}

/** Re-run this command with `BUN_CONFIG_MAX_HTTP_REQUESTS=value`; resolves to the child's exit code. */
export async function respawnWithFetchCap(value: number): Promise<number> {
  const env = processEnvCopy();
  env.BUN_CONFIG_MAX_HTTP_REQUESTS = String(value);
  env.GYM_DRIVER_RESPAWNED = "1";
  delete env.BUN_BE_BUN;
  log.debug(`re-spawning the driver with BUN_CONFIG_MAX_HTTP_REQUESTS=${value} (D16)`);
  const child = Bun.spawn(sameCommandLine(), { env, stdin: "inherit", stdout: "inherit", stderr: "inherit" });
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  const code = await child.exited;
  process.off("SIGINT", onInt);
  process.off("SIGTERM", onTerm);
  return code;
}

/** In a re-spawned driver: call `onOrphaned` once the parent is gone. Returns a stop function. */
export function watchParent(onOrphaned: () => void): () => void {
  if (!readEnv().driverRespawned) return () => {};
  const parent = process.ppid;
  const t = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(t);
      onOrphaned();
    }
  }, 500);
  t.unref?.();
  return () => clearInterval(t);
}
