/** Upstream-style random ids (`resp_<hex32>`, `msg_<hex32>`, `rs_<hex32>`, `call_<hex>`). */

/** 32 lowercase hex characters. */
export function hex32(): string {
  return crypto.randomUUID().replace(/-/g, "");
}

/** A fresh id with the given prefix, e.g. `newId("resp")` → `resp_0123…`. */
export function newId(prefix: string): string {
  return `${prefix}_${hex32()}`;
}
