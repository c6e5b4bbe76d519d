/**
 * What `gym env init` was asked to do (cli-config §2.4 `env init`, §2.5): the legacy resources
 * server scaffold (`--resources-server N` or `+entrypoint=resources_servers/N`), or a
 * manifest-backed environment/benchmark with its profile, verifier and reward options. All the
 * rules of the command line live here, each a usage error (exit 2).
 */
import { UsageError } from "../errors.ts";
import { closestMatch } from "../util/similar.ts";

/** The integration profiles `--profile` accepts. */
export const PROFILES = ["custom-gym-verifier", "custom-gym-agent-loop", "external-agent-loop", "external-rollout-driver"] as const;

/** The parsed command line of `gym env init`. */
export interface InitInput {
  resourcesServer?: string;
  environment?: string;
  benchmark?: string;
  profile?: string;
  reuseVerifier?: string;
  /** `--reward-range LOW HIGH` as given (two tokens). */
  rewardRange?: [string, string];
  higherIsBetter?: boolean;
  lowerIsBetter?: boolean;
  /** Raw override tokens (`+entrypoint=…`, `+scaffold_kind=…`, …). */
  overrides: string[];
}

/** A legacy resources-server scaffold. */
export interface ResourcesServerPlan {
  kind: "resources_server";
  /** Target directory relative to the cwd (a write path: never resolved through the roots). */
  entrypoint: string;
}

/** A manifest-backed environment or benchmark skeleton. */
export interface WorkloadPlan {
  kind: "environment" | "benchmark";
  name: string;
  profile: (typeof PROFILES)[number];
  reuseVerifier?: string;
  rewardRange?: [number, number];
  higherIsBetter?: boolean;
}

const PROG = "gym env init";

/** `key=value` command keys from override tokens (leading `+`s dropped), as §2.5's plain parse. */
function commandKeys(tokens: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tokens) {
    const eq = t.indexOf("=");
    if (eq < 0) continue;
    const key = t.slice(0, eq).replace(/^\+{1,2}/, "");
    let value = t.slice(eq + 1);
    if (/^".*"$/.test(value)) value = JSON.parse(value) as string;
    out[key] = value;
  }
  return out;
}

function notAllowed(a: string, b: string): UsageError {
  return new UsageError(`${PROG}: error: argument ${a}: not allowed with argument ${b}`);
}

function rewardBound(v: string, which: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new UsageError(`${PROG}: error: argument --reward-range: invalid float value for ${which}: '${v}'`);
  return n;
}

/** Check the command line and say what to scaffold. */
export function initPlan(input: InitInput): ResourcesServerPlan | WorkloadPlan {
  const flags: [string, string | undefined][] = [
    ["--resources-server", input.resourcesServer],
    ["--environment", input.environment],
    ["--benchmark", input.benchmark],
  ];
  const given = flags.filter(([, v]) => v !== undefined);
  if (given.length > 1) throw notAllowed(given[1]![0], given[0]![0]);
  if (input.higherIsBetter && input.lowerIsBetter) throw notAllowed("--lower-is-better", "--higher-is-better");

  const keys = commandKeys(input.overrides);
  const entrypoint = input.resourcesServer !== undefined ? `resources_servers/${input.resourcesServer}` : keys.entrypoint;
  const scaffoldKind = input.environment !== undefined ? "environment" : input.benchmark !== undefined ? "benchmark" : keys.scaffold_kind;
  const scaffoldName = input.environment ?? input.benchmark ?? keys.scaffold_name;
  const workloadOptions =
    input.profile !== undefined || input.reuseVerifier !== undefined || input.rewardRange !== undefined || input.higherIsBetter || input.lowerIsBetter ||
    ["profile", "reuse_verifier", "reward_range", "higher_is_better"].some((k) => keys[k] !== undefined);

  if (entrypoint !== undefined && scaffoldKind !== undefined) throw new UsageError(`${PROG}: error: select a resources server or a manifest-backed workload, not both`);
  if (scaffoldKind === undefined) {
    if (workloadOptions) throw new UsageError(`${PROG}: error: --profile, --reuse-verifier, and reward options require --environment or --benchmark`);
    if (entrypoint === undefined || entrypoint.trim() === "") {
      throw new UsageError(`${PROG}: error: one of the arguments --resources-server --environment --benchmark is required`, {
        hint: "e.g. `gym env init --resources-server my_server`",
      });
    }
    return { kind: "resources_server", entrypoint };
  }
  if (scaffoldKind !== "environment" && scaffoldKind !== "benchmark") {
    throw new UsageError(`${PROG}: error: scaffold_kind must be 'environment' or 'benchmark', got '${scaffoldKind}'`);
  }
  if (!scaffoldName || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(scaffoldName)) {
    throw new UsageError(`${PROG}: error: invalid ${scaffoldKind} name '${scaffoldName ?? ""}': use letters, digits, '_', '-' and '.'`);
  }
  const profile = input.profile ?? keys.profile ?? "custom-gym-verifier";
  if (!(PROFILES as readonly string[]).includes(profile)) {
    const near = closestMatch(profile, [...PROFILES]);
    throw new UsageError(`${PROG}: error: argument --profile: invalid choice: '${profile}' (choose from ${PROFILES.map((p) => `'${p}'`).join(", ")})`, {
      hint: near ? `Did you mean \`${near}\`?` : undefined,
    });
  }
  const plan: WorkloadPlan = { kind: scaffoldKind, name: scaffoldName, profile: profile as WorkloadPlan["profile"] };
  const reuse = input.reuseVerifier ?? keys.reuse_verifier;
  if (reuse !== undefined) plan.reuseVerifier = reuse;
  if (input.rewardRange) {
    plan.rewardRange = [rewardBound(input.rewardRange[0], "LOW"), rewardBound(input.rewardRange[1], "HIGH")];
  } else if (keys.reward_range !== undefined) {
    const parts = keys.reward_range.replace(/^\[|\]$/g, "").split(",");
    if (parts.length !== 2) throw new UsageError(`${PROG}: error: reward_range must be [LOW,HIGH], got ${keys.reward_range}`);
    plan.rewardRange = [rewardBound(parts[0]!, "LOW"), rewardBound(parts[1]!, "HIGH")];
  }
  if (plan.rewardRange && plan.rewardRange[0] >= plan.rewardRange[1]) {
    throw new UsageError(`${PROG}: error: --reward-range LOW HIGH needs LOW < HIGH, got ${plan.rewardRange[0]} ${plan.rewardRange[1]}`);
  }
  if (input.higherIsBetter) plan.higherIsBetter = true;
  else if (input.lowerIsBetter) plan.higherIsBetter = false;
  else if (keys.higher_is_better !== undefined) plan.higherIsBetter = keys.higher_is_better === "true" || keys.higher_is_better === "True";
  return plan;
}
