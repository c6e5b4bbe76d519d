/**
 * `env` values of a submit config (spec submit.md §3.2): every value carries a prefix that says
 * where it comes from. `lit:` is literal, `host:VAR` is read from the submitting shell at
 * validation (and baked only into job.sh, D28), `runtime:VAR` is expanded inside the job.
 */

/** A parsed env value. */
export type EnvValue = { kind: "lit"; value: string } | { kind: "host"; name: string } | { kind: "runtime"; name: string };

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `name` is a valid environment variable name. */
export function isEnvName(name: string): boolean {
  return NAME_RE.test(name);
}

/** Parse one raw value; returns an error message (without location) when it is malformed. */
export function parseEnvValue(key: string, raw: string): EnvValue | { error: string } {
  if (raw.startsWith("lit:")) return { kind: "lit", value: raw.slice(4) };
  for (const kind of ["host", "runtime"] as const) {
    if (!raw.startsWith(`${kind}:`)) continue;
    const name = raw.slice(kind.length + 1);
    if (!isEnvName(name)) return { error: `env['${key}']: '${name}' is not a valid environment variable name for ${kind}:${name}` };
    return { kind, name };
  }
  return { error: `env['${key}']: '${raw}' must start with one of the prefixes 'lit:', 'host:', or 'runtime:'` };
}

/**
 * Check every value of an env map and read its `host:` variables into `hostValues`.
 * `label` prefixes each message (e.g. `services.policy.env`).
 */
export function checkEnvMap(
  env: Record<string, string>,
  label: string,
  lookup: (name: string) => string | undefined,
  hostValues: Record<string, string>,
  errors: string[],
): void {
  for (const [key, raw] of Object.entries(env)) {
    const parsed = parseEnvValue(key, raw);
    if ("error" in parsed) {
      errors.push(`${label}: ${parsed.error}`);
      continue;
    }
    if (parsed.kind !== "host") continue;
    const v = lookup(parsed.name);
    if (v === undefined) {
      errors.push(`${label}: env['${key}'] references host:${parsed.name}, but '${parsed.name}' is not set in the submitting shell's environment`);
      continue;
    }
    hostValues[parsed.name] = v;
  }
}
