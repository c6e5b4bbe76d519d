/** Token usage summed over the model calls of one agent loop (upstream `accumulate_response_usage`). */

/** A Responses usage block. */
export type Usage = { input_tokens: number; output_tokens: number; total_tokens: number; input_tokens_details?: { cached_tokens?: number | null }; output_tokens_details?: { reasoning_tokens?: number | null } };

/** `acc + u`; a detail unknown on either side stays unknown (null); never mutates its inputs. */
export function addUsage(acc: Usage | null, u: Usage | null | undefined): Usage | null {
  if (!u) return acc;
  if (!acc) return u;
  const plus = (a: number | null | undefined, b: number | null | undefined) => (a === null || a === undefined || b === null || b === undefined ? null : a + b);
  return {
    input_tokens: acc.input_tokens + u.input_tokens,
    input_tokens_details: { cached_tokens: plus(acc.input_tokens_details?.cached_tokens, u.input_tokens_details?.cached_tokens) },
    output_tokens: acc.output_tokens + u.output_tokens,
    output_tokens_details: { reasoning_tokens: plus(acc.output_tokens_details?.reasoning_tokens, u.output_tokens_details?.reasoning_tokens) },
    total_tokens: acc.total_tokens + u.total_tokens,
  };
}
