/**
 * Secret redaction (D10, cli-config §8.2). A key is secret when it contains `api_key`, `apikey`,
 * `secret`, `password` or `authorization` (any case), or has `token` as a whole word segment
 * (`hf_token`, `otelToken`; not `max_output_tokens` or `tokenizer`). Masking runs on unresolved
 * configs so `key: ${policy_api_key}` prints `****` too.
 */
import { isPlainMap } from "./merge.ts";

/** The mask printed instead of a secret value. */
export const MASK = "****";

const ANYWHERE = /api_key|apikey|secret|password|authorization/i;

/** Word segments of a key: alphanumeric runs, split again at lower→upper camelCase boundaries. */
export function keySegments(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((s) => s !== "")
    .map((s) => s.toLowerCase());
}

// Configs repeat the same few hundred keys many times over; a bounded cache keeps the regex and
// split work to once per distinct key.
const secretKeyCache = new Map<string, boolean>();

/** True when a map key names a secret (D10). */
export function isSecretKey(key: string): boolean {
  let secret = secretKeyCache.get(key);
  if (secret === undefined) {
    secret = ANYWHERE.test(key) || keySegments(key).includes("token");
    if (secretKeyCache.size >= 10_000) secretKeyCache.clear();
    secretKeyCache.set(key, secret);
  }
  return secret;
}

function maskValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (isPlainMap(x) ? redactSecrets(x) : Array.isArray(x) ? maskValue(x) : x === null ? null : MASK));
  if (isPlainMap(v)) return redactSecrets(v);
  // An unset secret stays visibly unset: null carries no secret.
  return v === null ? null : MASK;
}

function walk(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(walk);
  if (isPlainMap(v)) return redactSecrets(v);
  return v;
}

/** A copy of `value` with every secret masked (maps under secret keys are walked, not masked whole). */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map(walk) as T;
  if (!isPlainMap(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) out[k] = isSecretKey(k) ? maskValue(value[k]) : walk(value[k]);
  return out as T;
}

/** Replace each occurrence of the given secret values (e.g. resolved `host:` env values) in a text. */
export function maskSecretValues(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(MASK);
  return out;
}
