/**
 * The shared judge client (components.md §3.7, upstream `nemo_gym/judge.py`): ask a gym model
 * server, by instance name, over `/v1/responses` (or `/v1/chat/completions` where upstream does),
 * with the server's `judge_responses_create_params` as the base request and at most
 * `judge_endpoint_max_concurrency` calls in flight. Any transport error, non-2xx status, non-JSON
 * body or answer that does not validate as upstream's response model becomes a JudgeError, which
 * the resources server kind turns into a `judge_failed` row (retried on `--resume`). Reading the
 * verdict is the caller's (labels.ts): an answer that arrives but says nothing usable is a wrong
 * answer, not a failure.
 *
 * The transport is injected (a component passes its InnerClient), so this module does no I/O of
 * its own and stays in verify/.
 */
import { Gate } from "../../util/semaphore.ts";
import { JudgeError, reraiseJudgeErrors } from "./judge-error.ts";

type Obj = Record<string, unknown>;

/** How the judge reaches a model server by name (structurally an InnerClient). */
export interface JudgeTransport {
  call(serverName: string, path: string, opts: { json: unknown; signal?: AbortSignal }): Promise<{ status: number; text: string }>;
}

/** Settings of one judge (read from a resources server's config). */
export interface JudgeOptions {
  transport: JudgeTransport;
  /** `judge_model_server.name`. */
  server: string;
  /** `judge_responses_create_params`; its `input` is replaced on every call. */
  createParams: Obj;
  /** `judge_endpoint_max_concurrency`; null/undefined = unlimited. */
  maxConcurrency?: number | null;
}

/** One recorded judge call, the shape upstream stores in `judge_evaluations` (replayable by scripted_model). */
export interface JudgeEvaluation {
  responses_create_params: Obj;
  response: Obj;
  [extra: string]: unknown;
}

/** An easy input message (`{role, content}`), as upstream's judges send them. */
export interface JudgeMessage {
  role: "system" | "developer" | "user" | "assistant";
  content: string;
}

/** `[system?, user]` messages: the system message only when it is a non-empty string. */
export function judgeMessages(user: string, system?: string | null): JudgeMessage[] {
  return system ? [{ role: "system", content: system }, { role: "user", content: user }] : [{ role: "user", content: user }];
}

// Required fields of upstream's NeMoGymResponse / NeMoGymChatCompletion (pydantic validation).
const RESPONSE_KEYS = ["id", "created_at", "model", "object", "output", "parallel_tool_calls", "tool_choice", "tools"];
const CHAT_KEYS = ["id", "choices", "created", "model", "object"];

function validate(json: unknown, keys: string[], what: string): Obj {
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new JudgeError(`ValidationError: ${what} answer is not a JSON object`);
  const o = json as Obj;
  const missing = keys.filter((k) => !(k in o));
  if (missing.length > 0) throw new JudgeError(`ValidationError: ${what} answer lacks required field(s) ${missing.join(", ")}`);
  return o;
}

/** A judge bound to one model server. */
export class JudgeClient {
  private readonly gate: Gate;
  constructor(readonly opts: JudgeOptions) {
    this.gate = new Gate(opts.maxConcurrency);
  }

  /** Calls in flight now (for tests of the concurrency limit). */
  get inFlight(): number {
    return this.gate.inFlight;
  }

  /** POST `json` to the judge at `path`, check the status, parse and validate (JudgeError on any failure). */
  async post(path: string, json: unknown, requiredKeys: string[], signal?: AbortSignal): Promise<Obj> {
    const what = `judge model server '${this.opts.server}' ${path}`;
    return this.gate.run(() =>
      reraiseJudgeErrors(async () => {
        const res = await this.opts.transport.call(this.opts.server, path, { json, signal });
        if (res.status < 200 || res.status >= 300) throw new JudgeError(`HTTPError: ${what} answered ${res.status}: ${res.text.slice(0, 500)}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(res.text);
        } catch {
          throw new JudgeError(`JSONDecodeError: ${what} answered ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
        }
        return validate(parsed, requiredKeys, what);
      }),
    );
  }

  /** Ask over `/v1/responses` with `judge_responses_create_params` and this `input`; returns the call as recorded. */
  async respond(input: JudgeMessage[] | Obj[], signal?: AbortSignal): Promise<JudgeEvaluation> {
    const params: Obj = { ...structuredClone(this.opts.createParams), input };
    const response = await this.post("/v1/responses", params, RESPONSE_KEYS, signal);
    return { responses_create_params: params, response };
  }

  /** Ask over `/v1/responses` with a request built by the caller (servers whose overrides may replace `input`). */
  async respondWith(params: Obj, signal?: AbortSignal): Promise<JudgeEvaluation> {
    const response = await this.post("/v1/responses", params, RESPONSE_KEYS, signal);
    return { responses_create_params: params, response };
  }

  /** Ask over `/v1/chat/completions` with a full chat request; returns request and completion. */
  async chat(params: Obj, signal?: AbortSignal): Promise<{ request: Obj; completion: Obj }> {
    const completion = await this.post("/v1/chat/completions", params, CHAT_KEYS, signal);
    return { request: params, completion };
  }

  /**
   * A chat request carrying the responses params' sampling settings, as upstream's chat-path judges
   * build it (`max_tokens` ← `max_output_tokens`, `temperature`, `top_p`, each with that server's default).
   */
  chatParams(messages: JudgeMessage[], defaults: { max_tokens?: number; temperature?: number; top_p?: number } = {}): Obj {
    const p = this.opts.createParams;
    const pick = (k: string, d: number | undefined) => (typeof p[k] === "number" && p[k] !== 0 ? p[k] : d);
    const out: Obj = { messages };
    const mt = pick("max_output_tokens", defaults.max_tokens);
    const t = pick("temperature", defaults.temperature);
    const tp = pick("top_p", defaults.top_p);
    if (mt !== undefined) out.max_tokens = mt;
    if (t !== undefined) out.temperature = t;
    if (tp !== undefined) out.top_p = tp;
    return out;
  }
}
