/**
 * Validate a composed submit config (spec submit.md §3, §5.1): strict schema with defaults, env
 * prefixes (reading `host:` variables), every cross-field rule, GPU arithmetic, then policy wiring.
 * Returns the config to print/persist (host: values stay references), the host values for the
 * renderer, and warnings for stderr.
 */
import { Value } from "typebox/value";
import type { Static, TSchema } from "typebox";
import { ConfigError } from "../errors.ts";
import { collectSchemaProblems, noProblems, type SchemaProblems } from "./_schema-errors.ts";
import { crossFieldChecks } from "./_validate-cross.ts";
import { checkEnvMap, isEnvName } from "./env-values.ts";
import { injectPolicy } from "./policy.ts";
import * as S from "./schema.ts";

/** What validation produces. */
export interface Validated {
  /** The validated config, policy keys injected; `host:VAR` kept as references. */
  config: S.SubmitConfig;
  /** Values of the `host:` variables, read now (only job.sh may hold them, D28). */
  hostValues: Record<string, string>;
  /** Non-fatal findings (idle GPUs, D35 sharing, ignored containers), for stderr. */
  warnings: string[];
}

/** Options of validateSubmit. */
export interface ValidateOptions {
  /** Reads a variable of the submitting shell. */
  lookupEnv: (name: string) => string | undefined;
}

/**
 * `raw` with the schema's defaults, typed by the schema. Its problems go to `probs`, and every
 * caller throws on problems before the value is used, so the type is what the check proved.
 */
function typed<T extends TSchema>(schema: T, raw: unknown, prefix: string, probs: SchemaProblems): Static<T> {
  const value = Value.Default(schema, structuredClone(raw));
  collectSchemaProblems(schema, value, prefix, probs);
  return value as Static<T>;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Report problems as one ConfigError naming the file. */
export function invalid(path: string, parts: string[]): ConfigError {
  return new ConfigError(`Submit config '${path}' is invalid: ${parts.join("; ")}`, {
    code: "E_SUBMIT_CONFIG",
    hint: "fix the named fields in the submit config (or with a key=value override) and run again",
  });
}

function problemsToParts(p: SchemaProblems): string[] {
  const parts: string[] = [];
  if (p.missing.length > 0) parts.push(`missing required configuration: ${p.missing.join(", ")}`);
  if (p.invalid.length > 0) parts.push(`invalid configuration: ${p.invalid.join(", ")}`);
  return parts;
}

/** Validate a composed dict (scratch keys dropped, interpolations resolved). Throws ConfigError. */
export function validateSubmit(dict: Record<string, unknown>, path: string, opts: ValidateOptions): Validated {
  const probs = noProblems();
  const cross: string[] = [];
  const warnings: string[] = [];
  collectSchemaProblems(S.SubmitTop, dict, "", probs);
  if (probs.missing.length > 0 || probs.invalid.length > 0) throw invalid(path, problemsToParts(probs));

  // compute: exactly one entry, discriminated by type.
  const computeRaw = dict.compute as Record<string, unknown>;
  const computeNames = Object.keys(computeRaw);
  if (computeNames.length !== 1) {
    throw invalid(path, [
      computeNames.length === 0
        ? "compute must declare exactly one compute resource (none given)"
        : `Multiple compute resources are not supported yet (${computeNames.join(", ")}).`,
    ]);
  }
  const computeName = computeNames[0]!;
  const computeEntry = typedTagged(computeRaw[computeName], `compute.${computeName}`, { slurm: S.SlurmCompute }, probs);
  const nodePools: Record<string, S.NodePoolConfig> = {};
  if (computeEntry && isMap(computeEntry.node_pools)) {
    for (const [pn, raw] of Object.entries(computeEntry.node_pools)) {
      nodePools[pn] = typed(S.NodePool, raw ?? {}, `compute.${computeName}.slurm.node_pools.${pn}`, probs);
    }
  }
  const compute: S.SlurmConfig | undefined = computeEntry && { ...computeEntry, node_pools: nodePools };
  const bare = compute?.container_runtime === "none";

  // services, one at a time so paths carry the type tag.
  const services: Record<string, S.ServiceConfig> = {};
  for (const [name, raw] of Object.entries(dict.services as Record<string, unknown>)) {
    const svc = typedService(name, raw, computeName, bare, probs, cross, warnings);
    if (svc) services[name] = svc;
  }

  const driverEntry = typed(S.Driver, dict.driver, "driver", probs);
  const benchmarks: Record<string, S.BenchmarkConfig> = {};
  if (isMap(driverEntry.benchmarks)) {
    for (const [bn, raw] of Object.entries(driverEntry.benchmarks)) {
      const b = typed(S.Benchmark, raw ?? {}, `driver.benchmarks.${bn}`, probs);
      let resumable: S.BenchmarkConfig["resumable"] = b.resumable === true;
      if (isMap(b.resumable)) {
        const r = typed(S.Resumable, b.resumable, `driver.benchmarks.${bn}.resumable`, probs);
        resumable = { max_retries: r.max_retries ?? 3, max_walltime: r.max_walltime ?? null };
      }
      const { shards: rawShards, ...rest } = b;
      benchmarks[bn] = { ...rest, resumable, ...(rawShards !== undefined ? { shards: shardsOf(rawShards, `driver.benchmarks.${bn}.shards`, probs) } : {}) };
    }
  }
  const driver: S.DriverConfig = { ...driverEntry, benchmarks };
  if (bare && dict.driver && isMap(dict.driver) && "container" in dict.driver) {
    warnings.push(`compute '${computeName}' has container_runtime: none, so driver.container is ignored (the driver runs on the node).`);
  }
  const job = typed(S.Job, dict.job, "job", probs);
  const otel = typed(S.Otel, dict.otel ?? {}, "otel", probs);
  if (probs.missing.length > 0 || probs.invalid.length > 0) throw invalid(path, [...problemsToParts(probs), ...cross]);

  if (!isEnvName(otel.token_env)) cross.push(`otel.token_env: '${otel.token_env}' is not a valid environment variable name`);
  const hostValues: Record<string, string> = {};
  for (const [name, svc] of Object.entries(services)) {
    checkEnvMap(svc.env, `services.${name}`, opts.lookupEnv, hostValues, cross);
    if (svc.type === "vllm_pd") {
      checkEnvMap(svc.prefill.env, `services.${name}.prefill`, opts.lookupEnv, hostValues, cross);
      checkEnvMap(svc.decode.env, `services.${name}.decode`, opts.lookupEnv, hostValues, cross);
    }
  }
  checkEnvMap(driver.env, "driver", opts.lookupEnv, hostValues, cross);

  const config: S.SubmitConfig = { services, compute: { [computeName]: compute! }, driver, job, otel };
  if (cross.length > 0) throw invalid(path, cross);
  crossFieldChecks(config, cross, warnings);
  if (cross.length > 0) throw invalid(path, cross);
  injectPolicy(config, cross);
  if (cross.length > 0) throw invalid(path, cross);
  return { config, hostValues, warnings };
}

/** An entry discriminated by `type`, typed by the schema of its tag. */
function typedTagged<M extends Record<string, TSchema>>(raw: unknown, prefix: string, schemas: M, probs: SchemaProblems): Static<M[keyof M]> | undefined {
  const tags = Object.keys(schemas);
  if (!isMap(raw)) {
    probs.invalid.push(`${prefix} (Input should be a valid dictionary)`);
    return undefined;
  }
  const tag = raw.type;
  if (tag === undefined) {
    probs.missing.push(`${prefix}.type`);
    return undefined;
  }
  if (typeof tag !== "string" || !tags.includes(tag)) {
    probs.invalid.push(`${prefix} (Input tag '${String(tag)}' found using 'type' does not match any of the expected tags: ${tags.map((t) => `'${t}'`).join(", ")})`);
    return undefined;
  }
  return typed(schemas[tag] as M[keyof M], raw, `${prefix}.${tag}`, probs);
}

const TIER_ONLY = ["server_per_node", "nixl_side_channel_port"] as const;

function typedService(
  name: string,
  raw: unknown,
  computeName: string,
  bare: boolean,
  probs: SchemaProblems,
  cross: string[],
  warnings: string[],
): S.ServiceConfig | undefined {
  const prefix = `services.${name}`;
  let input = raw;
  if (isMap(raw) && raw.type === "ray" && "node_pool" in raw) {
    const p = raw.node_pool;
    cross.push(`A ray service spans \`node_pools\`, not a single \`node_pool\`; use node_pools: [${String(p)}]. (services.${name}.node_pool)`);
    input = { ...raw };
    delete (input as Record<string, unknown>).node_pool;
  }
  const entry = typedTagged(input, prefix, { vllm: S.VllmService, vllm_pd: S.VllmPdService, ray: S.RayService }, probs);
  if (!entry) return undefined;
  const tagPath = `${prefix}.${entry.type}`;
  containerRule(entry, tagPath, name, bare, probs, warnings);
  const placement = entry.placement ?? computeName;
  if (entry.type === "vllm") {
    const svc: S.VllmConfig = { ...entry, placement, health_check: healthFor(entry.health_check, entry.port) };
    if (Number.isInteger(svc.number_of_instances) && svc.number_of_instances < 1) cross.push(`number_of_instances must be >= 1, got ${svc.number_of_instances} (${tagPath}.number_of_instances)`);
    return svc;
  }
  if (entry.type === "vllm_pd") {
    const rawPd = isMap(input) ? input : {};
    const tier = (role: "prefill" | "decode") => typedTier(entry, role, rawPd[role], { name, tagPath, computeName, bare }, probs, cross, warnings);
    const prefill = tier("prefill");
    const decode = tier("decode");
    // A tier that is not a map is already a schema problem: validation fails before this is used.
    if (!prefill || !decode) return undefined;
    const svc: S.VllmPdConfig = { ...entry, placement, health_check: healthFor(entry.health_check, entry.port), prefill, decode };
    const decodeRaw = rawPd.decode;
    if (isMap(decodeRaw) && !("data_parallel_rpc_port" in decodeRaw)) svc.decode.data_parallel_rpc_port = svc.prefill.data_parallel_rpc_port + 1;
    return svc;
  }
  const svc: S.RayConfig = { ...entry, placement, ...(entry.health_check ? { health_check: healthFor(entry.health_check, entry.port) } : {}) };
  return svc;
}

/** One tier of a `vllm_pd` service: the service's container/model/name and port + 1 or + 2, then the tier's own keys. */
function typedTier(
  svc: Static<typeof S.VllmPdService>,
  role: "prefill" | "decode",
  tierRaw: unknown,
  at: { name: string; tagPath: string; computeName: string; bare: boolean },
  probs: SchemaProblems,
  cross: string[],
  warnings: string[],
): S.VllmConfig | undefined {
  if (!isMap(tierRaw)) return undefined;
  const tierIn: Record<string, unknown> = { ...tierRaw };
  for (const f of TIER_ONLY) {
    if (f in tierIn) {
      cross.push(`${f} is set on the ${role} tier. Set it on the vllm_pd service itself; it applies to both tiers. (${at.tagPath}.${role}.${f})`);
      delete tierIn[f];
    }
  }
  const derived: Record<string, unknown> = { type: "vllm", port: svc.port + (role === "prefill" ? 1 : 2) };
  for (const k of ["container", "model", "served_model_name"] as const) if (svc[k] !== undefined && svc[k] !== null) derived[k] = svc[k];
  const t = typed(S.VllmTier, { ...derived, ...tierIn }, `${at.tagPath}.${role}`, probs);
  if (t.model === undefined) probs.missing.push(`${at.tagPath}.${role}.model`);
  const tier: S.VllmConfig = { ...t, type: "vllm", model: t.model ?? "", placement: t.placement ?? at.computeName, health_check: healthFor(t.health_check, t.port) };
  containerRule(tier, `${at.tagPath}.${role}`, `${at.name}.${role}`, at.bare, probs, warnings);
  if (tier.number_of_instances < 1) cross.push(`number_of_instances must be >= 1, got ${tier.number_of_instances} (${at.tagPath}.${role}.number_of_instances)`);
  return tier;
}

function healthFor(hc: S.HealthCheck | undefined, port: number): S.HealthCheck {
  const base = hc ?? { path: "/health", port: null, timeout_seconds: 60 };
  return { ...base, port: base.port ?? port };
}

function containerRule(svc: { container?: string }, tagPath: string, label: string, bare: boolean, probs: SchemaProblems, warnings: string[]): void {
  if (!bare && svc.container === undefined) probs.missing.push(`${tagPath}.container`);
  if (bare && svc.container !== undefined && !label.includes(".")) {
    warnings.push(`container_runtime is none, so the container of service '${label}' is ignored (the step runs on the node).`);
  }
}

/** `shards: N` or `{count, max_parallel}` → the mapping (undefined after recording a problem). */
function shardsOf(raw: unknown, path: string, probs: SchemaProblems): S.ShardsConfig {
  const v = typed(S.Shards, isMap(raw) ? raw : { count: raw }, path, probs);
  return { count: v.count, max_parallel: v.max_parallel ?? null };
}
