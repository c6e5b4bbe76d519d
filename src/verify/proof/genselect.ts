/**
 * Pairwise proof selection (upstream resources_servers/proof_genselect): the model ends its answer with
 * `<best_solution>1|2</best_solution>` (after `</think>` when reasoning is inline); reward 1 when it
 * picks the row's `correct_index`. A failed extraction carries a reason, as upstream's details do.
 */
import { PyIntError, pyInt } from "../../util/py-int.ts";
import { pyStrip } from "../../util/py-str.ts";

/** Why no selection was read. */
export type GenSelectFailure = "missing_think_end" | "missing_best_solution_tag" | "invalid_best_solution_value" | "best_solution_out_of_range";

/** The selected proof (1 or 2), or null and the reason. */
export function extractBestSolution(response: string, assertThinkEnd = false): { index: number | null; reason: GenSelectFailure | null } {
  if (assertThinkEnd && !response.includes("</think>")) return { index: null, reason: "missing_think_end" };
  const parts = response.split("</think>");
  const tail = pyStrip(parts[parts.length - 1]!);
  if (!tail.includes("<best_solution>") || !tail.includes("</best_solution>")) return { index: null, reason: "missing_best_solution_tag" };
  const inner = tail.slice(tail.indexOf("<best_solution>") + "<best_solution>".length);
  const close = inner.indexOf("</best_solution>");
  let index: number;
  try {
    index = pyInt(pyStrip(close < 0 ? inner : inner.slice(0, close)));
  } catch (e) {
    if (e instanceof PyIntError) return { index: null, reason: "invalid_best_solution_value" };
    throw e;
  }
  if (index !== 1 && index !== 2) return { index: null, reason: "best_solution_out_of_range" };
  return { index, reason: null };
}
