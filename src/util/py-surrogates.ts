/**
 * Python's `s.encode("utf-8", "surrogatepass").decode("utf-8", "replace")`, the scrub upstream's
 * servers apply so a lone UTF-16 surrogate cannot break JSON output: each lone half becomes three
 * U+FFFD (its three encoded bytes, each replaced); valid pairs and everything else stay.
 */

/** Replace every lone surrogate with U+FFFD ×3, as CPython's round trip does. */
export function replaceLoneSurrogates(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD\uFFFD\uFFFD");
}

/** The same scrub over every string (keys included) of a JSON value. */
export function replaceLoneSurrogatesDeep(v: unknown): unknown {
  if (typeof v === "string") return replaceLoneSurrogates(v);
  if (Array.isArray(v)) return v.map(replaceLoneSurrogatesDeep);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [replaceLoneSurrogates(k), replaceLoneSurrogatesDeep(x)]));
  return v;
}
