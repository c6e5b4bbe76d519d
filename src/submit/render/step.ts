/**
 * One backgrounded srun step (spec submit.md §6.4) and the `env K=V …` prefix of §3.2.
 */
import { ConfigError } from "../../errors.ts";
import { isEnvName, parseEnvValue } from "../env-values.ts";
import { bashVarStart, q } from "./shell.ts";

/** Render `env K=V …` for an env map (`host:` values baked in, `runtime:` as `"K=${VAR}"`). */
export function envPrefix(env: Record<string, string>, hostValues: Record<string, string>, label: string): string {
  const words: string[] = [];
  for (const [key, raw] of Object.entries(env)) {
    if (!isEnvName(key)) {
      throw new ConfigError(`Invalid environment variable name: '${key}' (${label}.env)`, { code: "E_SUBMIT_CONFIG", hint: "env keys must match ^[A-Za-z_][A-Za-z0-9_]*$" });
    }
    const v = parseEnvValue(key, raw);
    if ("error" in v) throw new ConfigError(`${label}: ${v.error}`, { code: "E_SUBMIT_CONFIG" });
    if (v.kind === "lit") words.push(`${key}=${q(v.value)}`);
    else if (v.kind === "host") words.push(`${key}=${q(hostValues[v.name] ?? "")}`);
    else words.push(`"${key}=\${${v.name}}"`);
  }
  return words.length > 0 ? `env ${words.join(" ")} ` : "";
}

/** Container flags of a step (pyxis), or none. */
export interface ContainerSpec {
  image: string;
  mounts: string[];
  workdir?: string;
}

/** Everything needed to render one step. */
export interface StepSpec {
  name: string;
  envPrefix: string;
  placement: string[];
  container: ContainerSpec | null;
  command: string;
  /** Background with `&` and record `<VAR>_PID=$!` (every step but the driver). */
  background: boolean;
  /** Override of the PID variable name (the collector's is OTEL_COLLECTOR_PID). */
  pidVar?: string;
}

/** The PID variable of a step. */
export function pidVarOf(name: string): string {
  return `${bashVarStart(name)}_PID`;
}

/** Render a step: `# service:` comment, the srun line, the PID line. No empty lines inside. */
export function renderStep(s: StepSpec, comment = true): string {
  const flags = ["srun", "--overlap", ...s.placement];
  if (s.container) {
    flags.push("--no-container-mount-home");
    if (s.container.mounts.length > 0) flags.push(`--container-mounts=${s.container.mounts.map(q).join(",")}`);
    flags.push(`--container-image=${q(s.container.image)}`);
    if (s.container.workdir) flags.push(`--container-workdir=${q(s.container.workdir)}`);
  }
  flags.push(`--output=logs/${q(s.name)}-$SLURM_JOB_ID.log`);
  const lines: string[] = [];
  if (comment) lines.push(`# service: ${s.name.replace(/\n/g, " ")}`);
  lines.push(`${s.envPrefix}${flags.join(" ")} ${s.command}${s.background ? " &" : ""}`);
  if (s.background) lines.push(`${s.pidVar ?? pidVarOf(s.name)}=$!`);
  return lines.join("\n");
}
