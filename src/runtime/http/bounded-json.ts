/**
 * Bounded looks at request JSON for the error paths of the HTTP layer: how deep a value nests
 * (a 1M-deep array parses natively but overflows the stack of any recursive handler), and a
 * size-capped copy of a 422 item's `input` (FastAPI echoes the whole input; a 50 MB body must
 * not come back as a 100 MB answer).
 */

/** Deepest nesting gym's servers accept in a JSON body; deeper bodies answer 400. */
export const MAX_JSON_DEPTH = 512;

/** Characters of a 422 item's `input` echoed back at most. */
export const MAX_ECHO_CHARS = 2048;

/** True when `value` nests arrays/objects deeper than `max` (recursion stops at `max`, so it never overflows). */
export function jsonDepthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  return value !== null && typeof value === "object" && deeper(value as object, max - 1);
}

// Plain recursion over containers only (no tuples, no Object.values arrays): a few µs per typical body.
function deeper(v: object, left: number): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const c: unknown = v[i];
      if (c !== null && typeof c === "object" && (left === 0 || deeper(c, left - 1))) return true;
    }
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const c = o[k];
    if (c !== null && typeof c === "object" && (left === 0 || deeper(c, left - 1))) return true;
  }
  return false;
}

/** The JSON text of `v` when it fits in `budget` characters, else undefined (stops as soon as it is over). */
function boundedJson(v: unknown, budget: number): string | undefined {
  const parts: string[] = [];
  let used = 0;
  const push = (s: string): boolean => {
    used += s.length;
    parts.push(s);
    return used <= budget;
  };
  const walk = (x: unknown): boolean => {
    if (x === null || typeof x !== "object") {
      const s = JSON.stringify(x);
      return push(s === undefined ? "null" : s);
    }
    if (Array.isArray(x)) {
      if (!push("[")) return false;
      for (let i = 0; i < x.length; i++) if ((i > 0 && !push(",")) || !walk(x[i])) return false;
      return push("]");
    }
    if (!push("{")) return false;
    let first = true;
    for (const [k, val] of Object.entries(x)) {
      if (val === undefined) continue;
      if ((!first && !push(",")) || !push(`${JSON.stringify(k)}:`) || !walk(val)) return false;
      first = false;
    }
    return push("}");
  };
  return walk(v) ? parts.join("") : undefined;
}

/** `input` unchanged when its JSON is within `budget` characters, else a string naming the cut. */
export function capEcho(input: unknown, budget = MAX_ECHO_CHARS): unknown {
  if (input === null || typeof input !== "object") {
    return typeof input === "string" && input.length > budget ? `${input.slice(0, budget)}… (truncated, ${input.length} characters)` : input;
  }
  if (boundedJson(input, budget) !== undefined) return input;
  return `(input not echoed: its JSON is longer than ${budget} characters)`;
}
