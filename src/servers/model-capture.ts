/**
 * Model-call capture, the model server's side (runtime.md §14): with `observability_enabled`
 * and `model_call_capture_dir`, every exchange on `/v1/responses`, `/v1/chat/completions` and
 * `/v1/messages` that carries a rollout id (`/ng-rollout/<id>/…` or `x-nemo-gym-rollout-id`)
 * is appended, failures included, as one JSON line to `<dir>/<rollout_id>.capture.jsonl` —
 * the file the driver folds (rollout/capture.ts). A line is written before the answer leaves,
 * so the driver never folds a file that is still missing the rollout's last call. Capture
 * never alters the answer: a write failure leaves a `<id>.capture.incomplete` marker instead.
 */
import { mkdir, open, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { configAccess } from "../config/access.ts";
import type { ConfigDict } from "../config/types.ts";
import { log } from "../log.ts";
import { HttpError, InnerServerError, type RequestContext } from "../runtime/http/http-types.ts";
import { hex32 } from "./ids.ts";

type Obj = Record<string, unknown>;

/** Which route a call came in on. */
export type CaptureDialect = "responses" | "chat" | "messages";

/** What a wrapped call reports besides its return value (SSE answers carry the object they replay). */
export interface CaptureNote {
  /** The answer object behind an SSE rendering. */
  response?: unknown;
  /** A failure that an SSE rendering turned into a terminal event (status stays 200). */
  failure?: unknown;
}

/** Rollout ids the capture store accepts as file names (runtime.md §14). */
const ROLLOUT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The `error_category` of a failed call (gym wording): the request was refused (`request_invalid`),
 * the inference endpoint answered non-2xx (`upstream_error`), a deadline passed (`timeout`), the
 * caller went away (`cancelled`), anything else (`server_error`).
 */
export function captureErrorCategory(err: unknown, cancelled: boolean): string {
  if (cancelled) return "cancelled";
  if (err instanceof HttpError) return err.status < 500 ? "request_invalid" : "server_error";
  if (err instanceof InnerServerError) return "upstream_error";
  if (err instanceof Error && (err.name === "TimeoutError" || /timed out/i.test(err.message))) return "timeout";
  return "server_error";
}

function truthy(v: unknown): boolean {
  return v === true || (typeof v === "string" && v.toLowerCase() === "true");
}

function topLevel(dict: ConfigDict, key: string): unknown {
  return configAccess({ dict }).read(key);
}

/** The capture store of one model server, or undefined when capture is off in the config. */
export function modelCallCaptureFor(globalConfig: ConfigDict, instanceName: string): ModelCallCapture | undefined {
  if (!truthy(topLevel(globalConfig, "observability_enabled"))) return undefined;
  const dir = topLevel(globalConfig, "model_call_capture_dir");
  if (typeof dir !== "string" || dir === "") {
    log.warn(`(${instanceName}) observability_enabled is set but model_call_capture_dir is not; model calls are not captured`);
    return undefined;
  }
  return new ModelCallCapture(resolve(dir), instanceName);
}

/** Appends capture lines for one model server instance. */
export class ModelCallCapture {
  /** Per-file write chains: lines of one rollout land whole and in call order within this process. */
  private readonly chains = new Map<string, Promise<void>>();
  private warnedBadId = false;
  private madeDir = false;

  constructor(
    readonly dir: string,
    readonly instanceName: string,
  ) {}

  /**
   * Run one model call and capture it when it carries a rollout id; the answer (or error) passes
   * through unchanged. `modelCallId`: the id training-token capture minted for this call, so its
   * token record joins this line (upstream mints one id for both).
   */
  async around<T>(ctx: RequestContext, dialect: CaptureDialect, run: (note: CaptureNote) => Promise<T>, modelCallId?: string): Promise<T> {
    const id = ctx.rolloutId;
    if (id === undefined) return run({});
    if (!ROLLOUT_ID.test(id)) {
      if (!this.warnedBadId) log.warn(`(${this.instanceName}) rollout id ${JSON.stringify(id.slice(0, 100))} is not a valid capture id ([A-Za-z0-9][A-Za-z0-9._-]*); such calls are not captured`);
      this.warnedBadId = true;
      return run({});
    }
    const note: CaptureNote = {};
    const startedAt = Date.now() / 1000;
    const t0 = performance.now();
    let value: T;
    try {
      value = await run(note);
    } catch (err) {
      await this.write(id, this.line(ctx, dialect, startedAt, t0, note, { err }, modelCallId));
      throw err;
    }
    await this.write(id, this.line(ctx, dialect, startedAt, t0, note, { value }, modelCallId));
    return value;
  }

  private line(ctx: RequestContext, dialect: CaptureDialect, startedAt: number, t0: number, note: CaptureNote, outcome: { value?: unknown; err?: unknown }, modelCallId?: string): Obj {
    const latency = performance.now() - t0;
    const streamed = outcome.value instanceof Response;
    const line: Obj = {
      model_call_id: modelCallId ?? `mc_${hex32()}`,
      rollout_id: ctx.rolloutId,
      dialect,
      model_ref: { type: "responses_api_models", name: this.instanceName },
      started_at: startedAt,
      completed_at: startedAt + latency / 1000,
      latency_ms: latency,
      // Streams are rendered after the backend answered (buffer-then-replay), so the first byte is the whole call.
      latency_ttft_ms: streamed ? latency : null,
      status_code: 200,
      error_category: null,
      request: ctx.body,
    };
    if (ctx.trainingTokenCapture) line.training_token_capture = true;
    const err = "err" in outcome ? outcome.err : note.failure;
    if (err !== undefined) {
      line.error_category = captureErrorCategory(err, ctx.signal.aborted);
      if ("err" in outcome) line.status_code = err instanceof HttpError ? err.status : 500;
      line.response = err instanceof HttpError ? { detail: err.detail } : null;
      if (err instanceof InnerServerError) {
        line.upstream_status_code = err.status;
        line.response_raw = err.body;
      } else if (!(err instanceof HttpError)) {
        line.response_raw = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      return line;
    }
    line.response = streamed ? (note.response ?? null) : outcome.value;
    return line;
  }

  /** Append one line (one write of a complete line, then fsync); failures leave the incomplete marker. */
  private write(rolloutId: string, line: Obj): Promise<void> {
    const file = join(this.dir, `${rolloutId}.capture.jsonl`);
    const prev = this.chains.get(file) ?? Promise.resolve();
    const next = prev.then(() => this.appendLine(file, rolloutId, line));
    this.chains.set(file, next);
    void next.finally(() => {
      if (this.chains.get(file) === next) this.chains.delete(file);
    });
    return next;
  }

  private async appendLine(file: string, rolloutId: string, line: Obj): Promise<void> {
    let text: string;
    try {
      text = `${JSON.stringify(line)}\n`;
    } catch (e) {
      text = `${JSON.stringify({ ...line, request: null, response: null, response_raw: `capture could not serialise the payload: ${(e as Error).message}` })}\n`;
    }
    try {
      if (!this.madeDir) {
        await mkdir(this.dir, { recursive: true });
        this.madeDir = true;
      }
      // O_APPEND with one write per line: other processes appending to the same rollout (a judge
      // model, num_workers > 1) cannot tear a line on a local filesystem.
      const fh = await open(file, "a");
      try {
        await fh.write(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (e) {
      log.warn(`(${this.instanceName}) model-call capture for rollout ${rolloutId} failed: ${(e as Error).message}; marking it incomplete`);
      await writeFile(join(this.dir, `${rolloutId}.capture.incomplete`), `${(e as Error).message}\n`).catch(() => undefined);
    }
  }
}
