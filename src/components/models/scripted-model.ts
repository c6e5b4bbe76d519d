/**
 * responses_api_models/scripted_model (D26, components.md §3.10): no network. Scripted answers
 * (first tool with synthesised arguments, then fixed text), or turn-by-turn replay of a
 * rollouts file with `replay_jsonl_fpath`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { searchRoots, resolveInRoots } from "../../config/roots.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { modelCallCaptureFor } from "../../servers/model-capture.ts";
import { tokenCaptureFor } from "../../servers/token-capture/capture.ts";
import { modelServerApp, type ModelBackend } from "../../servers/model.ts";
import { str } from "../_support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { countWords, responseObject, scriptedChatCompletion, scriptedResponse } from "./_scripted-core.ts";
import { ReplayBook } from "./_scripted-replay.ts";
import { lastPromptText } from "./_scripted-judge-text.ts";
import { ConfigError } from "../../errors.ts";

const CLASS_NAME = "ScriptedModelServer";
/** The model id scripted_model reports and lists. */
export const SCRIPTED_MODEL_ID = "scripted_model";

async function replayPath(ctx: ComponentContext, p: string): Promise<string> {
  const roots = await searchRoots();
  const found = resolveInRoots(p, roots);
  if (existsSync(found)) return found;
  const abs = resolve(p);
  if (existsSync(abs)) return abs;
  throw new ConfigError(`${ctx.instanceName}: replay_jsonl_fpath ${p} was not found in the working directory or the search roots (${roots.join(", ")})`, {
    key: "replay_jsonl_fpath",
    hint: "point it at a rollouts file written by gym eval run (absolute, or relative to the cwd or a search root)",
  });
}

/** The scripted backend (replay when a book is given). */
export function scriptedBackend(model: string, book?: ReplayBook): ModelBackend {
  return {
    async responses(params) {
      if (!book) return scriptedResponse(params, model);
      const { output, response, ended } = book.next(params.input);
      const resp = responseObject(params, typeof response.model === "string" ? response.model : model, output, countWords(params.input));
      // A recording that ended after its last model turn: an incomplete, empty turn stops the agent there.
      if (ended) Object.assign(resp, { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
      return resp;
    },
    async chatCompletions(params) {
      if (book) {
        // A chat-path judge is answered from text-only judge recordings (frontierscience_judge's judge_output).
        const prompt = lastPromptText(params.messages);
        const text = prompt === undefined ? undefined : book.judgeText.answer(prompt);
        if (text === undefined) throw new HttpError(400, `scripted_model replays recorded Responses rollouts (${book.path}) on /v1/responses; on /v1/chat/completions it answers only judge prompts whose answer text the file records, and none matches this one`);
        const completion = scriptedChatCompletion(params, model);
        (completion.choices as Record<string, unknown>[]).forEach((c) => (c.message = { role: "assistant", content: text }));
        return completion;
      }
      return scriptedChatCompletion(params, model);
    },
    models: () => [SCRIPTED_MODEL_ID],
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "responses_api_models",
  implementation: "scripted_model",
  className: CLASS_NAME,
  async create(ctx) {
    const replay = str(ctx, "replay_jsonl_fpath");
    const book = replay ? ReplayBook.load(await replayPath(ctx, replay)) : undefined;
    const model = str(ctx, "model") ?? SCRIPTED_MODEL_ID;
    return modelServerApp({ className: CLASS_NAME, instanceName: ctx.instanceName, capture: modelCallCaptureFor(ctx.globalConfig, ctx.instanceName), tokens: tokenCaptureFor(ctx.globalConfig, ctx.instanceName), backend: scriptedBackend(model, book) });
  },
};
