/**
 * The collector's side of model-call capture (runtime §14, `observability_enabled`): stale
 * capture files are removed before a rollout is dispatched; afterwards the model servers'
 * `<dir>/<rollout_id>.capture.jsonl` is folded into `ng_model_call_capture` and a normalised
 * `ng_trajectory`, raw payloads dropped, and — when token ids were captured — multi-step calls
 * are checked for monotonic token sequences (each prompt extends the previous prompt + generation).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Path of a rollout's capture file. */
export function captureFile(dir: string, rolloutId: string): string {
  return join(dir, `${rolloutId}.capture.jsonl`);
}

/** Remove a rollout's stale capture files before it runs. */
export function clearCapture(dir: string, rolloutId: string): void {
  rmSync(captureFile(dir, rolloutId), { force: true });
  rmSync(join(dir, `${rolloutId}.capture.incomplete`), { force: true });
}

type Obj = Record<string, unknown>;

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** Token counts of one captured exchange (Responses or Chat Completions usage). */
function usageOf(resp: Obj | undefined): { tin: number; tout: number; treason: number } {
  const u = (resp?.usage ?? {}) as Obj;
  const details = (u.output_tokens_details ?? u.completion_tokens_details ?? {}) as Obj;
  return { tin: num(u.input_tokens ?? u.prompt_tokens), tout: num(u.output_tokens ?? u.completion_tokens), treason: num(details.reasoning_tokens) };
}

/**
 * Token ids a call carried (runtime §9.5): on the last output item of a Responses answer, or on
 * `choices[0].message` of a chat completion.
 */
function tokenIds(resp: Obj | undefined): { prompt: number[]; generation: number[] } | undefined {
  const out = resp?.output as Obj[] | undefined;
  const choices = resp?.choices as Obj[] | undefined;
  const carrier = Array.isArray(out) ? out.at(-1) : Array.isArray(choices) ? ((choices[0]?.message as Obj | undefined) ?? undefined) : undefined;
  if (!carrier || !Array.isArray(carrier.prompt_token_ids) || !Array.isArray(carrier.generation_token_ids)) return undefined;
  return { prompt: carrier.prompt_token_ids as number[], generation: carrier.generation_token_ids as number[] };
}

/**
 * Calls whose prompt does not extend the previous call's prompt + generation (1-based call
 * numbers). Calls are compared per model server (`model_ref.name`): a judge's calls captured
 * under the same rollout are a separate sequence.
 */
export function tokenSequenceViolations(calls: Obj[]): number[] {
  const bad: number[] = [];
  const prevBy = new Map<string, { prompt: number[]; generation: number[] }>();
  calls.forEach((c, i) => {
    const ids = tokenIds(c.response as Obj | undefined);
    if (!ids) return;
    const ref = c.model_ref as Obj | undefined;
    const key = typeof ref?.name === "string" ? ref.name : "";
    const prev = prevBy.get(key);
    prevBy.set(key, ids);
    if (prev) {
      const expected = [...prev.prompt, ...prev.generation];
      if (ids.prompt.length < expected.length || expected.some((t, j) => ids.prompt[j] !== t)) bad.push(i + 1);
    }
  });
  return bad;
}

/** Read a rollout's capture and return the fields to attach (undefined when nothing was captured). */
export function foldCapture(dir: string, rolloutId: string, record: Obj): { ng_model_call_capture: Obj; ng_trajectory: Obj } | undefined {
  const file = captureFile(dir, rolloutId);
  const incomplete = existsSync(join(dir, `${rolloutId}.capture.incomplete`));
  if (!existsSync(file) && !incomplete) return undefined;
  const calls: Obj[] = [];
  if (existsSync(file)) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        calls.push(JSON.parse(line) as Obj);
      } catch {
        /* a torn capture line is a gap, not a failure */
      }
    }
  }
  const metrics = { tokens_in: 0, tokens_out: 0, tokens_reasoning: 0, tokens_total: 0, latency_ms: 0, errors: 0 };
  for (const c of calls) {
    const u = usageOf(c.response as Obj | undefined);
    metrics.tokens_in += u.tin;
    metrics.tokens_out += u.tout;
    metrics.tokens_reasoning += u.treason;
    metrics.latency_ms += num(c.latency_ms);
    if (num(c.status_code) >= 400 || c.error_category) metrics.errors++;
  }
  metrics.tokens_total = metrics.tokens_in + metrics.tokens_out;
  const gaps: string[] = incomplete ? ["capture_incomplete"] : [];
  const violations = tokenSequenceViolations(calls);
  const output = ((record.response as Obj | undefined)?.output ?? []) as Obj[];
  const toolCalls = Array.isArray(output) ? output.filter((o) => o && o.type === "function_call").length : 0;
  // Raw request/response payloads are dropped once the trajectory summary exists.
  const slim = calls.map(({ request: _rq, response: _rs, request_raw: _a, response_raw: _b, ...rest }) => rest);
  const capture: Obj = { rollout_id: rolloutId, metrics, calls: slim };
  if (gaps.length > 0) capture.gaps = gaps;
  if (violations.length > 0) capture.token_sequence_violations = violations;
  const trajectory: Obj = { invocations: 1, turns: calls.length, model_calls: calls.length, tool_calls: toolCalls, gaps };
  return { ng_model_call_capture: capture, ng_trajectory: trajectory };
}
