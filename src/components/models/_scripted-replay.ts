/**
 * scripted_model replay (D26): find the recorded rollout whose input is a prefix of the request
 * and whose recorded output continues the rest of the request, and answer with the next
 * model-produced items (up to the next function-call batch or the final message). Both sides
 * are normalised first because agents send items without unset fields while a rollouts file
 * holds them fully serialised (nulls, defaulted `type`). A row's `judge_evaluations` are
 * recordings too, so a judge model server replays the judge calls a verifier recorded.
 */
import { readFileSync } from "node:fs";
import { HttpError } from "../../runtime/http/http-types.ts";
import { ConfigError } from "../../errors.ts";
import { JudgeTextBook, lastPromptText } from "./_scripted-judge-text.ts";

type Obj = Record<string, unknown>;

/** One recorded rollout. */
interface Recording {
  line: number;
  input: unknown[];
  output: Obj[];
  response: Obj;
  label: string;
}

/** Drop null-valued keys (recursively) and default a missing `type` on role items. */
export function normalizeItem(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeItem);
  if (v && typeof v === "object") {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj)) if (x !== null && x !== undefined) out[k] = normalizeItem(x);
    if (out.type === undefined && out.role !== undefined) out.type = "message";
    return out;
  }
  return v;
}

/** Normalise a Responses `input` (string → one user message). */
export function normalizeInput(input: unknown): unknown[] {
  const items = typeof input === "string" ? [{ role: "user", content: input }] : Array.isArray(input) ? input : [];
  return items.map(normalizeItem);
}

function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v as Obj).sort().map((k) => `${JSON.stringify(k)}:${stable((v as Obj)[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

function same(a: unknown, b: unknown): boolean {
  return stable(a) === stable(b);
}

/** The recordings of one rollouts JSONL file. */
export class ReplayBook {
  private readonly rows: Recording[] = [];
  /** Judge answers recorded as text only (rubric items, judge_output/judge_raw). */
  readonly judgeText = new JudgeTextBook();

  constructor(readonly path: string, text: string) {
    text.split("\n").forEach((raw, i) => {
      if (raw.trim() === "") return;
      let row: Obj;
      try {
        row = JSON.parse(raw) as Obj;
      } catch (e) {
        throw new ConfigError(`${path}:${i + 1}: not a JSON object (${(e as Error).message})`, { location: { file: path, line: i + 1 }, hint: "replay_jsonl_fpath must be a rollouts file written by gym eval run" });
      }
      const rcp = row.responses_create_params as Obj | undefined;
      const response = row.response as Obj | undefined;
      if (!rcp || !response || !Array.isArray(response.output)) {
        throw new ConfigError(`${path}:${i + 1}: a replay row needs responses_create_params.input and response.output`, { location: { file: path, line: i + 1 }, hint: "replay_jsonl_fpath must be a rollouts file written by gym eval run" });
      }
      const idx = [row._ng_task_index, row._ng_rollout_index].every((x) => x !== undefined) ? ` (task ${String(row._ng_task_index)}, rollout ${String(row._ng_rollout_index)})` : "";
      this.rows.push({ line: i + 1, input: normalizeInput(rcp.input), output: (response.output as unknown[]).map(normalizeItem) as Obj[], response, label: `line ${i + 1}${idx}` });
      this.judgeText.add(row);
      // A judge is replayed from the calls a verifier recorded in the row (D26): each is one more recording.
      const evals = Array.isArray(row.judge_evaluations) ? [...(row.judge_evaluations as Obj[])] : [];
      // Some verifiers record their one judge call as top-level fields instead (aalcr).
      if (row.judge_responses_create_params && row.judge_response) evals.push({ responses_create_params: row.judge_responses_create_params, response: row.judge_response });
      evals.forEach((ev, j) => {
        const eRcp = ev?.responses_create_params as Obj | undefined;
        const eResp = ev?.response as Obj | undefined;
        if (!eRcp || !eResp || !Array.isArray(eResp.output)) return;
        this.rows.push({ line: i + 1, input: normalizeInput(eRcp.input), output: (eResp.output as unknown[]).map(normalizeItem) as Obj[], response: eResp, label: `line ${i + 1}${idx} judge_evaluations[${j}]` });
      });
    });
  }

  /** Load a rollouts file. */
  static load(path: string): ReplayBook {
    return new ReplayBook(path, readFileSync(path, "utf8"));
  }

  /** Number of recordings. */
  get size(): number {
    return this.rows.length;
  }

  /** The next model-produced items for this request input, with the recording's response as template; 404 when none matches. */
  next(input: unknown): { output: Obj[]; response: Obj; ended?: true } {
    const req = normalizeInput(input);
    let best: { rec: Recording; matched: number; why: string } | undefined;
    for (const rec of this.rows) {
      const r = this.tryMatch(rec, req);
      if ("output" in r) return { output: r.output, response: rec.response, ...(r.ended ? { ended: true as const } : {}) };
      if (!best || r.matched > best.matched) best = { rec, matched: r.matched, why: r.why };
    }
    // A judge whose verifier recorded only its answer text.
    const prompt = lastPromptText(input);
    const text = prompt === undefined ? undefined : this.judgeText.answer(prompt);
    if (text !== undefined) {
      return { output: [{ id: "msg_replayed_judge", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], response: {} };
    }
    const closest = best ? `; the closest is ${best.rec.label}, which matches the first ${best.matched} item(s) and then ${best.why}` : " (the file has no recordings)";
    throw new HttpError(404, `scripted_model: no recorded rollout in ${this.path} matches this input of ${req.length} item(s)${closest}. Record the rollouts with the same prompts, or drop replay_jsonl_fpath to use scripted answers.`);
  }

  private tryMatch(rec: Recording, req: unknown[]): { output: Obj[]; ended?: true } | { matched: number; why: string } {
    const n = rec.input.length;
    for (let i = 0; i < Math.min(n, req.length); i++) {
      if (!same(rec.input[i], req[i])) return { matched: i, why: `differs at input item ${i}` };
    }
    if (req.length < n) return { matched: req.length, why: `expects ${n} input item(s)` };
    const rest = req.slice(n);
    for (let j = 0; j < rest.length; j++) {
      if (j >= rec.output.length) return { matched: n + j, why: "the recording has no more output" };
      if (!same(rec.output[j], rest[j])) return { matched: n + j, why: `differs from recorded output item ${j}` };
    }
    const out: Obj[] = [];
    for (let k = rest.length; k < rec.output.length; k++) {
      const item = rec.output[k]!;
      // A tool result or a user message (a Gymnasium environment's observation) is the environment's turn.
      if (item.type === "function_call_output" || item.role === "user") break;
      out.push(item);
    }
    if (out.length === 0) {
      // The recording ENDS here after a model turn (e.g. a reasoning-only answer cut at the token limit,
      // recorded by an older agent that stopped on it): answer an empty incomplete turn so the agent stops
      // where the recording stopped instead of failing the replay.
      const last = rec.output[rec.output.length - 1];
      if (rest.length === rec.output.length && last !== undefined && last.type !== "function_call_output") return { output: [], ended: true };
      return { matched: req.length, why: "the recording has no model turn left at this point" };
    }
    return { output: out };
  }
}
