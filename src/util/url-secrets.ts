/**
 * D39: credentials inside URLs never reach a terminal, a log or a file. One helper masks the
 * userinfo of any `scheme://user:pw@host` and the value of secret-looking query parameters
 * (`?api_key=…`, `&token=…`, `&sig=…`) wherever they occur in a text, so it works on a bare URL,
 * an error message that quotes one, or a whole log line.
 */

/** The mask printed instead of a secret (same as D10's key mask). */
const MASK = "****";

// scheme://userinfo@ — userinfo is everything up to the first '@' before the host, without '/', '?', '#' or whitespace.
const USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/g;
// ?name=value / &name=value; the name decides (secretQueryName).
const QUERY = /([?&])([A-Za-z0-9_.-]+)=([^&#\s"'<>]+)/g;
const SECRET_ANYWHERE = /api[_-]?key|apikey|secret|password|passwd|signature|credential/i;
const SECRET_SEGMENTS = new Set(["token", "key", "sig", "auth", "pwd", "pass"]);

/** True for a query parameter name that carries a credential (`api_key`, `access_token`, `key`, `X-Amz-Signature`; not `max_tokens`). */
function secretQueryName(name: string): boolean {
  return SECRET_ANYWHERE.test(name) || name.toLowerCase().split(/[_.-]/).some((seg) => SECRET_SEGMENTS.has(seg));
}

/** `text` with URL userinfo and secret-looking query values replaced by `****`. */
export function maskUrlSecrets(text: string): string {
  // Cheap precheck: most log lines hold neither "://" nor "=".
  if (!text.includes("://") && !text.includes("=")) return text;
  return text.replace(USERINFO, (_m, scheme: string) => `${scheme}${MASK}@`).replace(QUERY, (m, sep: string, name: string) => (secretQueryName(name) ? `${sep}${name}=${MASK}` : m));
}

/** A copy of a JSON-like value with every string passed through `maskUrlSecrets`. */
export function maskUrlSecretsDeep<T>(value: T): T {
  if (typeof value === "string") return maskUrlSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v) => maskUrlSecretsDeep(v)) as T;
  if (value && typeof value === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = maskUrlSecretsDeep(v);
    return out as T;
  }
  return value;
}
