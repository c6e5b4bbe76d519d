/**
 * Training token fields (runtime.md §9.5): find prompt/generation token ids and log probs in a
 * vLLM chat completion, from an inline bundle, from vLLM's `prompt_token_ids` +
 * `choices[0].token_ids`, or from `token_id:<n>` logprob entries plus `/tokenize`, and put
 * them on `choices[0].message`.
 */
import { pyError } from "./py-error.ts";

type Obj = Record<string, unknown>;

/** The three required token fields (plus optional `routed_experts`). */
export interface TokenBundle {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
  routed_experts?: unknown;
}

function fromLogprobs(choice: Obj): { ids: number[]; logprobs: number[] } | undefined {
  const content = (choice.logprobs as Obj | null | undefined)?.content as Obj[] | undefined;
  if (!Array.isArray(content)) return undefined;
  const ids: number[] = [];
  const logprobs: number[] = [];
  for (const entry of content) {
    const m = /^token_id:(-?\d+)$/.exec(String(entry.token));
    if (!m) throw pyError("RuntimeError", `logprobs entry token ${JSON.stringify(entry.token)} is not of the form token_id:<int>; the engine must run with return_tokens_as_token_ids`);
    ids.push(Number(m[1]));
    logprobs.push(Number(entry.logprob));
  }
  return { ids, logprobs };
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Attach the token bundle to `chat.choices[0].message` (mutates `chat`) and strip the transport
 * keys. `tokenize` is called only when the prompt ids come from nowhere else.
 */
export async function attachTokenIds(chat: Obj, tokenize: () => Promise<number[]>): Promise<TokenBundle> {
  const choice = ((chat.choices as Obj[] | undefined) ?? [])[0];
  if (!choice) throw pyError("RuntimeError", "the chat completion has no choices to read token ids from");
  const message = (choice.message as Obj | undefined) ?? {};
  choice.message = message;

  let bundle: TokenBundle;
  if (Array.isArray(message.prompt_token_ids) && Array.isArray(message.generation_token_ids) && Array.isArray(message.generation_log_probs)) {
    bundle = { prompt_token_ids: message.prompt_token_ids as number[], generation_token_ids: message.generation_token_ids as number[], generation_log_probs: message.generation_log_probs as number[] };
    if (message.routed_experts !== undefined) bundle.routed_experts = message.routed_experts;
  } else if (Array.isArray(chat.prompt_token_ids) && Array.isArray(choice.token_ids)) {
    const parsed = fromLogprobs(choice);
    if (!parsed) throw pyError("RuntimeError", "choices[0].token_ids is present but choices[0].logprobs.content is missing; the log probs cannot be read");
    if (!sameIds(parsed.ids, choice.token_ids as number[])) throw pyError("RuntimeError", "choices[0].token_ids disagrees with the token ids in choices[0].logprobs");
    bundle = { prompt_token_ids: chat.prompt_token_ids as number[], generation_token_ids: parsed.ids, generation_log_probs: parsed.logprobs };
    delete choice.logprobs;
  } else {
    const parsed = fromLogprobs(choice);
    if (!parsed) throw pyError("RuntimeError", "no token ids in the chat completion: neither a token bundle on the message, prompt_token_ids + token_ids, nor token_id logprobs");
    bundle = { prompt_token_ids: await tokenize(), generation_token_ids: parsed.ids, generation_log_probs: parsed.logprobs };
    delete choice.logprobs;
  }
  if (bundle.generation_token_ids.length !== bundle.generation_log_probs.length) {
    throw pyError("RuntimeError", `generation_token_ids (${bundle.generation_token_ids.length}) and generation_log_probs (${bundle.generation_log_probs.length}) differ in length`);
  }
  delete chat.prompt_token_ids;
  delete choice.token_ids;
  Object.assign(message, bundle);
  return bundle;
}
