/**
 * A judge call that failed (transport, HTTP status, or an answer that does not validate), as
 * opposed to a judge that answered but said something unparseable (an ordinary wrong answer).
 * The resources server kind turns it into a `judge_failed` row (servers/resources.ts, D21).
 */

/** A failed judge call; `/verify` answers with `_ng_failure_class: "judge_failed"` instead of a reward. */
export class JudgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgeError";
  }
}

/** Await a judge call and relabel any failure as a JudgeError (wrap the call only, never the scoring around it). */
export async function reraiseJudgeErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof JudgeError) throw e;
    const err = e as Error;
    throw new JudgeError(`${err?.name ?? "Error"}: ${err?.message ?? String(e)}`);
  }
}
