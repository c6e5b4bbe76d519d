/**
 * LongMemEval (upstream benchmarks/longmemeval/prepare.py over resources_servers/longmemeval/
 * prepare_longmemeval.py with its defaults: split `oracle`, `--topk-context 50`): the released
 * `longmemeval_oracle.json` from `xiaowu0162/longmemeval-cleaned`, each question's haystack rendered
 * into the JSON-history / no-CoT prompt as one user message, the judge's fields in
 * `verifier_metadata`, and every row tagged with the benchmark agent (`agent_ref`). Written with
 * `ensure_ascii=False`; the history's sessions with json.dumps' ASCII default.
 */
import { parseJson } from "../dataset/formats/json.ts";
import { SourceFormatError } from "../dataset/formats/_errors.ts";
import { log } from "../log.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import { pyStr } from "../util/py-str-of.ts";
import type { BenchmarkPreparer } from "./types.ts";

const SPLIT = "oracle";
const TOPK = 50;
const AGENT = "longmemeval_benchmark_simple_agent";

type Entry = Record<string, unknown>;

/** Python `str(v or "")`. */
function strOr(v: unknown): string {
  const falsy = v === undefined || v === null || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && Object.keys(v).length === 0);
  return falsy ? "" : pyStr(v);
}

/** `entry.get(key) or []` as a list. */
function listOr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A session with each turn's `has_answer` dropped (upstream's cleanup). */
function cleanSession(session: unknown): unknown {
  if (!Array.isArray(session)) return session;
  return session.map((turn) => (typeof turn === "object" && turn !== null && !Array.isArray(turn) ? Object.fromEntries(Object.entries(turn).filter(([k]) => k !== "has_answer")) : turn));
}

/** The rendered history: the last `topk` (date, session) pairs, sorted by date (stable). */
export function historyString(entry: Entry, topk = TOPK): string {
  const dates = listOr(entry.haystack_dates);
  const sessions = listOr(entry.haystack_sessions);
  let pairs = dates.slice(0, Math.min(dates.length, sessions.length)).map((d, i) => [d, sessions[i]] as const);
  if (topk > 0) pairs = pairs.slice(-topk);
  pairs = [...pairs].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
  return pairs.map(([date, session], i) => `\n### Session ${i + 1}:\nSession Date: ${pyStr(date)}\nSession Content:\n${"\n" + pyDumps(cleanSession(session))}\n`).join("");
}

/** One released question as upstream's `build_row` makes it, plus the benchmark's `agent_ref`. */
function buildRow(entry: Entry): string {
  const questionId = strOr(entry.question_id);
  const question = strOr(entry.question);
  const questionDate = strOr(entry.question_date);
  const history = historyString(entry);
  if (!history) log.warn(`longmemeval: empty history for question_id=${JSON.stringify(questionId)}`);
  const prompt = `I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.\n\n\nHistory Chats:\n\n${history}\n\nCurrent Date: ${questionDate}\nQuestion: ${question}\nAnswer:`;
  return pyDumps(
    {
      responses_create_params: { input: [{ role: "user", content: prompt }] },
      verifier_metadata: {
        question_id: questionId,
        question_type: strOr(entry.question_type),
        question,
        answer: strOr(entry.answer),
        question_date: questionDate,
        abstention: questionId.includes("_abs"),
        split: SPLIT,
        topk_context: TOPK,
      },
      agent_ref: { type: "responses_api_agents", name: AGENT },
    },
    false,
  );
}

/** The LongMemEval preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "longmemeval",
  server: "longmemeval",
  sources: [{ kind: "hf-file", repo: "xiaowu0162/longmemeval-cleaned", path: "longmemeval_oracle.json" }],
  prepare(files) {
    const file = files[0]![0]!;
    const data = parseJson(new TextDecoder().decode(file.bytes), file.name);
    if (!Array.isArray(data)) throw new SourceFormatError(file.name, "expected a JSON array of questions");
    return data.map((entry, i) => {
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new SourceFormatError(`${file.name}: item ${i + 1}`, "a question is not a JSON object");
      return buildRow(entry as Entry);
    });
  },
};
