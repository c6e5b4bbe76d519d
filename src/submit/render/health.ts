/** Health-check loops run on the batch host after every step started (spec submit.md §6.5). */
import { bashVarStart, dq } from "./shell.ts";

/** One health check to render. */
export interface HealthSpec {
  name: string;
  /** Node index probed (0 → localhost). */
  node: number;
  port: number;
  path: string;
  timeoutSeconds: number;
  pidVar: string;
  /** Variable-name stem for the READY flag. */
  readyVar?: string;
}

/** Render the wait loop of one service. */
export function renderHealth(h: HealthSpec): string {
  const host = h.node === 0 ? "localhost" : `\${gym_nodes[${h.node}]}`;
  const url = `http://${host}:${h.port}${dq(h.path)}`;
  const attempts = Math.max(1, Math.floor(h.timeoutSeconds / 5));
  const ready = `${h.readyVar ?? bashVarStart(h.name)}_READY`;
  const name = dq(h.name);
  return [
    `echo "Waiting for ${name} at http://${host}:${h.port}..."`,
    `${ready}=0`,
    `for _i in $(seq 1 ${attempts}); do`,
    `  if [ -n "\${${h.pidVar}:-}" ] && ! kill -0 "$${h.pidVar}" 2>/dev/null; then`,
    `    echo "${name} died during startup."`,
    "    exit 1",
    "  fi",
    `  if curl -sf --noproxy '*' --max-time 5 "${url}" >/dev/null; then`,
    `    ${ready}=1`,
    "    break",
    "  fi",
    "  sleep 5",
    "done",
    `if [ "$${ready}" -eq 0 ]; then`,
    `  echo "ERROR: ${name} did not become healthy after ${attempts} attempts."`,
    "  exit 1",
    "fi",
  ].join("\n");
}
