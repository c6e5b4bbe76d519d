/** The CodeRunner a code-executing resources server starts with, and what it says when the host limits it. */
import { readEnv } from "../../env.ts";
import { log } from "../../log.ts";
import { CodeRunner } from "../../verify/code/runner.ts";

/**
 * A runner for `processes` concurrent programs, checked once at start: partial isolation is said
 * once, and a missing python3 is logged (not thrown) so the server still starts and each /verify
 * fails as a typed `verifier` error (D27) instead of the whole run failing to start.
 */
export async function startCodeRunner(instanceName: string, processes: number): Promise<CodeRunner> {
  const runner = new CodeRunner({ maxConcurrent: processes }, readEnv().path);
  try {
    const host = await runner.check();
    if (!host.isolated) log.warn(`${instanceName}: unprivileged namespaces are not available here, so test programs run without network isolation (process-group kill and the Python guard still apply)`);
  } catch (e) {
    log.error(`${instanceName}: ${(e as Error).message} — every /verify will fail as a verifier error until python3 is installed`);
  }
  return runner;
}
