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

const REQUIRED = ["generation_log_probs", "generation_token_ids", "prompt_token_ids"] as const;

function idList(v: unknown, field: string): number[] {
  if (!Array.isArray(v)) throw pyError("RuntimeError", `\`${field}\` must be a list of integer token IDs.`);
  return v as number[];
}

/** A complete bundle, or upstream's "partial token metadata" / length-mismatch RuntimeError. */
function validBundle(b: Obj, source: string): TokenBundle {
  const missing = REQUIRED.filter((k) => !(k in b));
  if (missing.length > 0) throw pyError("RuntimeError", `${source} returned partial token metadata; missing: ${missing.join(", ")}.`);
  const out: TokenBundle = {
    prompt_token_ids: idList(b.prompt_token_ids, `${source}.prompt_token_ids`),
    generation_token_ids: idList(b.generation_token_ids, `${source}.generation_token_ids`),
    generation_log_probs: b.generation_log_probs as number[],
  };
  if (!Array.isArray(b.generation_log_probs)) throw pyError("RuntimeError", `\`${source}.generation_log_probs\` must be a list of numeric log probabilities.`);
  if ("routed_experts" in b) out.routed_experts = b.routed_experts;
  if (out.generation_token_ids.length !== out.generation_log_probs.length) {
    throw pyError("RuntimeError", `${source} returned mismatched generation token IDs and log probabilities: ${out.generation_token_ids.length} token IDs and ${out.generation_log_probs.length} log probabilities.`);
  }
  return out;
}

/** Source 1: a bundle on the message, if any required field is there (then all must be). */
function messageBundle(message: Obj): TokenBundle | undefined {
  if (!REQUIRED.some((k) => k in message)) return undefined;
  const b: Obj = {};
  for (const k of [...REQUIRED, "routed_experts"]) if (k in message) b[k] = message[k];
  return validBundle(b, "choice.message");
}

/** Source 2: vLLM's top-level `prompt_token_ids` with `choices[0].token_ids` (both or neither). */
function responseIds(chat: Obj, choice: Obj): [number[], number[]] | undefined {
  const p = chat.prompt_token_ids;
  const g = choice.token_ids;
  const hasP = p !== undefined && p !== null;
  const hasG = g !== undefined && g !== null;
  if (hasP !== hasG) throw pyError("RuntimeError", `vLLM response returned partial token metadata; missing: ${hasP ? "choice.token_ids" : "prompt_token_ids"}.`);
  return hasP ? [idList(p, "prompt_token_ids"), idList(g, "choice.token_ids")] : undefined;
}

/** Generation ids and log probs from `token_id:<n>` logprob entries (the engine's return_tokens_as_token_ids). */
function fromLogprobs(choice: Obj, serverName: string): { ids: number[]; logprobs: number[] } {
  const block = choice.logprobs as Obj | null | undefined;
  if (!block || typeof block !== "object" || !Array.isArray(block.content)) {
    throw pyError("RuntimeError", `\`${serverName}\` requested per-token logprobs from vLLM (return_token_id_information=True, logprobs=True, top_logprobs=0), but the response had none (choice.logprobs=${JSON.stringify(block ?? null)}). Cannot extract token ids or logprobs.`);
  }
  const ids: number[] = [];
  const logprobs: number[] = [];
  (block.content as unknown[]).forEach((entry, i) => {
    if (!entry || typeof entry !== "object") throw pyError("RuntimeError", `choice.logprobs.content[${i}] must be an object.`);
    const m = /^token_id:([+-]?\d+)$/.exec(typeof (entry as Obj).token === "string" ? ((entry as Obj).token as string).trim() : "");
    if (!m) throw pyError("RuntimeError", `choice.logprobs.content[${i}].token must use the \`token_id:<int>\` format.`);
    const lp = (entry as Obj).logprob;
    if (typeof lp !== "number") throw pyError("RuntimeError", `choice.logprobs.content[${i}].logprob must be numeric.`);
    ids.push(Number(m[1]));
    logprobs.push(lp);
  });
  return { ids, logprobs };
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Attach the token bundle to `chat.choices[0].message` (mutates `chat`) and strip the transport
 * keys, taking the sources in upstream's order; later inline sources present are cross-checked.
 * `tokenize` is called only when the prompt ids come from nowhere else.
 */
export async function attachTokenIds(chat: Obj, tokenize: () => Promise<number[]>, serverName = "vllm_model"): Promise<TokenBundle> {
  const choice = ((chat.choices as Obj[] | undefined) ?? [])[0];
  if (!choice) throw pyError("RuntimeError", "the chat completion has no choices to read token ids from");
  const message = (choice.message as Obj | undefined) ?? {};
  choice.message = message;

  const fromMessage = messageBundle(message);
  const fromResponse = responseIds(chat, choice);
  let bundle: TokenBundle;
  if (fromMessage) {
    if (fromResponse && (!sameIds(fromMessage.prompt_token_ids, fromResponse[0]) || !sameIds(fromMessage.generation_token_ids, fromResponse[1]))) {
      throw pyError("RuntimeError", "Message-level token metadata disagrees with vLLM response token IDs.");
    }
    bundle = fromMessage;
  } else {
    const parsed = fromLogprobs(choice, serverName);
    let prompt: number[];
    if (fromResponse) {
      if (!sameIds(fromResponse[1], parsed.ids)) throw pyError("RuntimeError", "vLLM response generation token IDs disagree with choice logprob token IDs.");
      prompt = fromResponse[0];
    } else {
      prompt = idList(await tokenize(), "tokenize.tokens");
    }
    const raw: Obj = { prompt_token_ids: prompt, generation_token_ids: parsed.ids, generation_log_probs: parsed.logprobs };
    if (message.routed_experts !== undefined && message.routed_experts !== null) raw.routed_experts = message.routed_experts;
    bundle = validBundle(raw, "vLLM token transport");
    // The logprobs were a transport for the ids; they are consumed here.
    delete choice.logprobs;
  }
  delete chat.prompt_token_ids;
  delete choice.token_ids;
  Object.assign(message, bundle);
  return bundle;
}

/**
 * Token monotonicity across turns (upstream `assert_prefix_contiguity`): walking the output
 * items that carry `generation_token_ids`, each item's `prompt_token_ids` must start with the
 * previous item's prompt + generation. Items without generation ids (content-only, tool
 * outputs) are skipped. Raises upstream's AssertionError otherwise.
 */
export function assertPrefixContiguity(response: Obj): void {
  let seen: number[] = [];
  for (const item of (response.output as unknown[] | undefined) ?? []) {
    if (!item || typeof item !== "object") continue;
    const it = item as Obj;
    if (it.generation_token_ids === undefined || it.generation_token_ids === null) continue;
    const prompt = (it.prompt_token_ids as number[] | null | undefined) ?? [];
    if (prompt.length < seen.length || !seen.every((v, i) => v === prompt[i])) {
      throw pyError("AssertionError", "projection is not prefix-contiguous: an output item's prompt_token_ids does not extend the tokens seen so far");
    }
    seen = [...prompt, ...(it.generation_token_ids as number[])];
  }
}
