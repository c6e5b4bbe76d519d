/**
 * What jailbreak_detection and over_refusal_detection share: config readers for their reward
 * values and templates, and one judge call whose answer text is read the way upstream reads it
 * (the last output item must be a message; its last content part's text).
 */
import { ConfigError } from "../../errors.ts";
import { judgeMessages, type JudgeClient } from "../../verify/judge/judge-client.ts";
import { lastMessageText } from "../../verify/judge/labels.ts";
import type { ComponentContext } from "../registry.ts";

type Obj = Record<string, unknown>;

/** A float leaf key with a default (a non-number is a config error naming the key). */
export function num(ctx: ComponentContext, key: string, fallback: number): number {
  const v = ctx.config[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new ConfigError(`${ctx.instanceName}: ${key} must be a number, got ${JSON.stringify(v)}`, { key });
  return n;
}

/** A string leaf key kept verbatim (null/absent → the fallback; an empty string stays empty). */
export function text(ctx: ComponentContext, key: string, fallback: string): string {
  const v = ctx.config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "string") throw new ConfigError(`${ctx.instanceName}: ${key} must be a string, got ${JSON.stringify(v)}`, { key });
  return v;
}

/** One recorded judge call as upstream's JudgeEvaluation model dumps it (the error field is always null: failures are `judge_failed` rows). */
export interface SafetyEvaluation extends Obj {
  responses_create_params: Obj;
  response: Obj;
  verdict_label: string | null;
  error: null;
}

/** Ask the judge `[system?, user]` and return the recorded call plus its text (undefined: the answer has no readable message). */
export async function askSafetyJudge(judge: JudgeClient, user: string, system: string | null): Promise<{ evaluation: SafetyEvaluation; text: string | undefined }> {
  const call = await judge.respond(judgeMessages(user, system));
  return { evaluation: { responses_create_params: call.responses_create_params, response: call.response, verdict_label: null, error: null }, text: lastMessageText(call.response) };
}

/** The request's explicit prompt field, else the last user message whose content is a string. */
export function promptOf(explicit: unknown, rcp: unknown): string {
  if (typeof explicit === "string" && explicit) return explicit;
  const input = (rcp as Obj | undefined)?.input;
  const items = (Array.isArray(input) ? input : []) as Obj[];
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.role === "user" && typeof items[i]!.content === "string") return items[i]!.content as string;
  return "";
}
