/**
 * Training-token capture, the model server's side (upstream `sink.py` + the training half of the
 * capture middleware): a call that arrived on `/ng-rollout/<id>/training-token-capture/v1/…` gets
 * a fresh `model_call_id`; its intent is written before dispatch (a failure there fails the call),
 * and the backend's complete answer (before any SSE or Anthropic rendering drops the token fields)
 * becomes a `TokenEntry` that is durable before the answer leaves. A capture failure never fails
 * the model call: it marks the rollout incomplete, so the collector masks it.
 */
import { configAccess } from "../../config/access.ts";
import type { ConfigDict } from "../../config/types.ts";
import { log } from "../../log.ts";
import { HttpError, type RequestContext } from "../../runtime/http/http-types.ts";
import { tokenCaptureForAgent, tokenCaptureSettings, type TokenCaptureSettings } from "../token-capture-settings.ts";
import { extractTokenFields, newTokenEntry, responseToOutputItems, stripTokenFields, type TokenEntry } from "./records.ts";
import { TokenCaptureStore, validateRolloutId, type TokenSink } from "./store.ts";

type Obj = Record<string, unknown>;

/** One captured call in flight (upstream `CaptureContext`). */
export interface CaptureContext {
  rolloutId: string;
  modelCallId: string;
  /** null: capture is on but another process owns record staging (identity only). */
  sink: TokenSink | null;
  /** Set once an entry for this call is durable. */
  committed: boolean;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The `token_id_capture` side of one model server. */
export class TokenCapture {
  constructor(
    readonly sink: TokenSink | null,
    readonly instanceName: string,
  ) {}

  /** Open a capture for this request, or undefined when it did not come on the training-capture path. */
  async begin(ctx: RequestContext): Promise<CaptureContext | undefined> {
    if (!ctx.trainingTokenCapture || ctx.rolloutId === undefined) return undefined;
    const rolloutId = ctx.rolloutId;
    try {
      validateRolloutId(rolloutId);
    } catch (e) {
      throw new HttpError(400, `training-token capture: ${(e as Error).message}; rollout ids are letters, digits, '.', '_' and '-'`);
    }
    const c: CaptureContext = { rolloutId, modelCallId: crypto.randomUUID().replace(/-/g, ""), sink: this.sink, committed: false };
    // Before generation: a lost entry then leaves a dangling intent and the rollout is masked.
    if (c.sink?.beginCall) await c.sink.beginCall(rolloutId, c.modelCallId);
    return c;
  }

  /**
   * A call on the training-capture path that no capturing route serves (e.g. `GET …/v1/models`):
   * it cannot produce a record, yet its output may feed a later prompt, so the rollout is marked
   * (upstream marks it before forwarding). Never throws.
   */
  async unobserved(rolloutId: string, what: string): Promise<void> {
    if (this.sink === null) return;
    log.warn(`(${this.instanceName}) ${what} on the training-capture path of rollout ${rolloutId} cannot be captured; the rollout is marked incomplete`);
    try {
      await this.sink.markIncomplete(validateRolloutId(rolloutId), "");
    } catch (e) {
      log.warn(`(${this.instanceName}) could not mark rollout ${rolloutId} incomplete for unobserved ${what}: ${(e as Error).message}`);
    }
  }

  /** Record the backend's complete answer; never throws. */
  async capture(c: CaptureContext, response: unknown): Promise<void> {
    let entry: TokenEntry;
    try {
      if (!isObj(response)) return await this.missing(c, `the response is a ${response === null ? "null" : typeof response}`);
      const info = extractTokenFields(response);
      if (info === null) return await this.missing(c, "the response carries no token ids");
      const { items, tokenItemIndex } = stripTokenFields(responseToOutputItems(response));
      entry = newTokenEntry({
        rollout_id: c.rolloutId,
        model_call_id: c.modelCallId,
        model: typeof response.model === "string" ? response.model : "",
        prompt_token_ids: info.prompt_token_ids as number[],
        generation_token_ids: info.generation_token_ids as number[],
        generation_log_probs: info.generation_log_probs as number[],
        routed_experts: info.routed_experts ?? null,
        output_items: items,
        token_item_index: tokenItemIndex,
        created_at: Date.now() / 1000,
      });
    } catch (e) {
      return await this.failed(c, "build", e);
    }
    await this.commit(c, entry);
  }

  /** Durably record a finished entry for the call in flight (engine-side callers may already hold the arrays). */
  async commit(c: CaptureContext, entry: TokenEntry): Promise<void> {
    if (entry.rollout_id !== c.rolloutId || entry.model_call_id !== c.modelCallId) {
      log.warn(`(${this.instanceName}) training-token capture identity mismatch for model call ${c.modelCallId} of rollout ${c.rolloutId}`);
      return this.markIncomplete(c);
    }
    if (c.sink === null) {
      c.committed = true;
      return;
    }
    try {
      await c.sink.put(entry);
      c.committed = true;
    } catch (e) {
      await this.failed(c, "write", e);
    }
  }

  /** A call this process should have recorded produced no token ids: a hole in the chain, so the rollout is marked. */
  private async missing(c: CaptureContext, reason: string): Promise<void> {
    if (c.committed || c.sink === null) return;
    log.warn(`(${this.instanceName}) training-token capture has no token ids for model call ${c.modelCallId} of rollout ${c.rolloutId}: ${reason}; the rollout will be masked (set return_token_id_information: true on the model server)`);
    await this.markIncomplete(c);
  }

  private async failed(c: CaptureContext, stage: string, e: unknown): Promise<void> {
    log.warn(`(${this.instanceName}) training-token capture failed to ${stage} the record for model call ${c.modelCallId} of rollout ${c.rolloutId}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    await this.markIncomplete(c);
  }

  private async markIncomplete(c: CaptureContext): Promise<void> {
    if (c.sink === null) return;
    try {
      await c.sink.markIncomplete(c.rolloutId, c.modelCallId);
    } catch (e) {
      log.warn(`(${this.instanceName}) could not mark rollout ${c.rolloutId} incomplete: ${(e as Error).message}`);
    }
  }
}

/** The run's `token_id_capture` settings read from a (possibly interpolated) global config. */
export function tokenCaptureSettingsOf(globalConfig: ConfigDict): TokenCaptureSettings {
  const access = configAccess({ dict: globalConfig });
  return tokenCaptureSettings({ token_id_capture: access.read("token_id_capture"), model_call_capture_dir: access.read("model_call_capture_dir") });
}

/** Whether an agent with this leaf sends its model calls down the training-capture path. */
export function agentTakesPartInTokenCapture(globalConfig: ConfigDict, leaf: Obj): boolean {
  return tokenCaptureForAgent(tokenCaptureSettingsOf(globalConfig), leaf);
}

/** This model server's training-token capture from the global config, or undefined when `token_id_capture` is off. */
export function tokenCaptureFor(globalConfig: ConfigDict, instanceName: string): TokenCapture | undefined {
  const settings = tokenCaptureSettingsOf(globalConfig);
  if (!settings.enabled) return undefined;
  // No directory (rebuild_response: false): the identity is still minted, records are another process's job.
  return new TokenCapture(settings.dir === null ? null : new TokenCaptureStore(settings.dir), instanceName);
}
