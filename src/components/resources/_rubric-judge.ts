/** What multichallenge and inverse_if share: the aggregation mode key and one rubric judge call. */
import { ConfigError } from "../../errors.ts";
import { judgeMessages, type JudgeClient } from "../../verify/judge/judge-client.ts";
import { answerWithoutThinking } from "../../verify/judge/assistant-text.ts";
import { AGGREGATION_MODES, type AggregationMode } from "../../verify/judge/rubric.ts";
import { str } from "../_support.ts";
import type { ComponentContext } from "../registry.ts";

/** `aggregation_mode` (default mean), checked at start. */
export function aggregationMode(ctx: ComponentContext): AggregationMode {
  const mode = str(ctx, "aggregation_mode") ?? "mean";
  if (!(AGGREGATION_MODES as readonly string[]).includes(mode)) throw new ConfigError(`${ctx.instanceName}: aggregation_mode must be one of ${AGGREGATION_MODES.join(", ")}, got ${JSON.stringify(mode)}`, { key: "aggregation_mode" });
  return mode as AggregationMode;
}

/** Ask the judge `[system?, user]`; its answer text without thinking blocks. */
export async function askRubricJudge(judge: JudgeClient, user: string, system: string | null | undefined): Promise<string> {
  const call = await judge.respond(judgeMessages(user, system));
  return answerWithoutThinking(call.response);
}

/** Evaluate items in parallel (`parallel_evaluation` and more than one item) or one after another, keeping their order. */
export async function evaluateAll<T, R>(items: T[], parallel: boolean, one: (item: T) => Promise<R>): Promise<R[]> {
  if (parallel && items.length > 1) return Promise.all(items.map(one));
  const out: R[] = [];
  for (const item of items) out.push(await one(item));
  return out;
}
