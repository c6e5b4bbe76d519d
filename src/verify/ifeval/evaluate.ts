/**
 * Grade one response against a row's instruction list, as upstream's `instruction_following.verify`:
 * pairs of (id, kwargs) zipped (the shorter list wins), an error in building or checking counts as not
 * followed, `binary` = all followed, `fraction` = share followed (0 for an empty list).
 */
import { buildInstruction, InstructionError } from "./registry.ts";
import { PyError } from "./py-str.ts";

/** The two grading modes. */
export type GradingMode = "binary" | "fraction";

/** The verdict for one response. */
export interface IfevalVerdict {
  reward: number;
  followAll: boolean;
  followList: boolean[];
  /** One message per instruction that raised (index → message); upstream only printed these. */
  errors: { index: number; instructionId: string; message: string }[];
}

/** Check one instruction; an exception upstream would raise becomes `{ok: false, error}`. */
export function checkOne(id: string, kwargs: unknown, text: string): { ok: boolean; error?: string } {
  try {
    return { ok: buildInstruction(id, kwargs)(text) === true };
  } catch (e) {
    if (e instanceof InstructionError) return { ok: false, error: e.message };
    if (e instanceof PyError) return { ok: false, error: `${id}: ${e.message}` };
    // A JS RangeError (e.g. a pathological regex) is still a per-row failure, never a crash.
    if (e instanceof RangeError || e instanceof SyntaxError) return { ok: false, error: `${id}: ${e.message}` };
    throw e;
  }
}

/** Grade `text` against `ids`/`kwargs` (kwargs entries may be null). */
export function evaluateInstructions(ids: readonly unknown[], kwargs: readonly unknown[], text: string, mode: GradingMode = "binary"): IfevalVerdict {
  const followList: boolean[] = [];
  const errors: IfevalVerdict["errors"] = [];
  const n = Math.min(ids.length, kwargs.length);
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    const r = typeof id === "string" ? checkOne(id, kwargs[i], text) : { ok: false, error: `instruction id must be a string, got ${JSON.stringify(id)}` };
    followList.push(r.ok);
    if (r.error) errors.push({ index: i, instructionId: String(id), message: r.error });
  }
  const followAll = followList.every(Boolean);
  const reward = mode === "binary" ? (followAll ? 1.0 : 0.0) : followList.length ? followList.filter(Boolean).length / followList.length : 0.0;
  return { reward, followAll, followList, errors };
}
