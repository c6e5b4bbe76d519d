/** The result shapes of `gym env test`: one check, and one server's checks. */

/** One check of one server. */
export interface Check {
  name: string;
  status: "pass" | "fail" | "skip";
  /** What was found (pass) or what is wrong (fail), or why the check did not run (skip). */
  detail: string;
  /** How to fix a failure. */
  hint?: string;
}

/** Every check of one server. */
export interface ServerReport {
  /** `resources_servers/<name>`, as upstream's entrypoint. */
  entrypoint: string;
  /** Absolute directory the checks read. */
  dir: string;
  builtin: boolean;
  ok: boolean;
  seconds: number;
  checks: Check[];
}

/** A passed check. */
export function pass(name: string, detail: string): Check {
  return { name, status: "pass", detail };
}

/** A failed check with its fix. */
export function fail(name: string, detail: string, hint?: string): Check {
  return hint ? { name, status: "fail", detail, hint } : { name, status: "fail", detail };
}

/** A check that did not run. */
export function skip(name: string, detail: string): Check {
  return { name, status: "skip", detail };
}
