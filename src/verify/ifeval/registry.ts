/**
 * Every instruction id upstream's `instruction_following` accepts (verifiable-instructions'
 * INSTRUCTION_DICT: 25 IFEval + 29 IFEvalG ids), and building one from a row's kwargs the way upstream
 * does: None-valued keys dropped, unknown keys rejected (TypeError upstream), argument checks kept.
 */
import { Rng, type Kwargs } from "./args.ts";
import { IFEVAL_CHECKS } from "./checks-ifeval.ts";
import { IFEVALG_CHECKS } from "./checks-ifevalg.ts";
import { PyError } from "./py-str.ts";
import type { Check, InstructionSpec } from "./types.ts";

/** Id → spec. */
export const INSTRUCTIONS: Readonly<Record<string, InstructionSpec>> = { ...IFEVAL_CHECKS, ...IFEVALG_CHECKS };

/** All registered ids, sorted. */
export function instructionIds(): string[] {
  return Object.keys(INSTRUCTIONS).sort();
}

/** Why an instruction could not be built or checked (the row's instruction then counts as not followed). */
export class InstructionError extends Error {
  override name = "InstructionError";
  constructor(
    readonly instructionId: string,
    message: string,
  ) {
    super(`${instructionId}: ${message}`);
  }
}

/**
 * Build one instruction's check from its kwargs (`null` kwargs = none). Throws InstructionError for an
 * unknown id, a kwargs value that is not an object, an unexpected keyword, or a value upstream rejects.
 */
export function buildInstruction(id: string, kwargs: unknown): Check {
  const spec = Object.hasOwn(INSTRUCTIONS, id) ? INSTRUCTIONS[id] : undefined;
  if (!spec) throw new InstructionError(id, `unknown instruction id (known: ${instructionIds().length} ids, e.g. detectable_format:title)`);
  if (kwargs !== null && kwargs !== undefined && (typeof kwargs !== "object" || Array.isArray(kwargs))) {
    throw new InstructionError(id, `kwargs must be an object or null, got ${Array.isArray(kwargs) ? "a list" : typeof kwargs}`);
  }
  const kw: Kwargs = {};
  for (const [k, v] of Object.entries((kwargs ?? {}) as Kwargs)) {
    if (v === null || v === undefined) continue;
    if (!spec.params.includes(k)) {
      throw new InstructionError(id, `build_description() got an unexpected keyword argument '${k}' (accepted: ${spec.params.join(", ") || "none"})`);
    }
    kw[k] = v;
  }
  try {
    return spec.build(kw, new Rng(`${id}|${JSON.stringify(kw)}`));
  } catch (e) {
    if (e instanceof PyError) throw new InstructionError(id, e.message);
    throw e;
  }
}
