/** The shape of one instruction in the registry. */
import type { Kwargs, Rng } from "./args.ts";

/** A built instruction: `check_following(text)`; a PyError thrown means "not followed". */
export type Check = (text: string) => boolean;

/** One instruction id: the keyword names `build_description` accepts and how it builds its check. */
export interface InstructionSpec {
  /** Keyword arguments upstream's `build_description` accepts (any other key is a TypeError upstream). */
  params: readonly string[];
  /** Build from kwargs (None-valued keys already dropped); `rng` stands in for upstream's random defaults. */
  build(kw: Kwargs, rng: Rng): Check;
}

/** Relations the comparison checks accept. */
export const RELATIONS = ["less than", "at least"] as const;
