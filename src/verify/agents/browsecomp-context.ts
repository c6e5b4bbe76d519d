/**
 * browsecomp_agent's pure context management: hiding old tool results (`keep_rounds`), keeping the
 * last complete tool rounds at a context reset, the milestone nudges, the progress board (its tool,
 * its system-prompt block, the pre-reset warning, the commit guard and the answer recovered from
 * the board), and the answer text the empty-answer retry looks at. The model-facing texts are
 * upstream's, unchanged: they are part of the harness's behaviour.
 */
import { pyLen, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;

/** What an old tool result is replaced by. */
export const HIDDEN_TOOL_RESULT = "[Previous tool result hidden for context management]";

/** The agent-handled tool that overwrites the progress board. */
export const PROGRESS_TOOL: Obj = {
  type: "function",
  name: "update_progress",
  description:
    "Maintain a ledger of SETTLED state on a durable board pinned to " +
    "the system prompt — the ONLY state that survives a context reset. " +
    "This OVERWRITES the board — pass the complete current state every " +
    "time; it is not appended. Record what is settled: confirmed facts " +
    "(with source), ruled-out candidates (with the constraint each " +
    "fails), and search angles already exhausted — not just your best " +
    "guess. The board is NEVER your final answer: to answer, emit " +
    "'Exact Answer: ...' as a normal assistant message. Board format " +
    "is described in the system prompt; keep it concise.",
  parameters: {
    type: "object",
    properties: { board: { type: "string", description: "The full board text. Replaces the previous board entirely — write the complete, current state." } },
    required: ["board"],
  },
  strict: false,
};

const ADDENDUM_HEAD =
  "\n\n## Progress Board (durable — survives context resets)\n" +
  "This board persists in the system prompt across resets; your conversation " +
  "history does not. Maintain it with `update_progress` (each call replaces " +
  "it). It is a ledger of SETTLED state. Track, concisely:\n" +
  "• Constraints — the conditions the answer must satisfy simultaneously.\n" +
  "• Confirmed facts — grounded findings, each with its source (URL/step).\n" +
  "• Ruled-out candidates — candidate + the constraint that eliminates it.\n" +
  "• Search angles tried — exhausted angles and what they yielded, so you " +
  "don't repeat them.\n" +
  "• Working hypothesis (UNVERIFIED — re-check every constraint before " +
  "committing; do not treat as settled).\n\n" +
  "After a context reset: treat any working hypothesis on the board as a " +
  "guess to re-test from the confirmed facts, NOT a conclusion. If the same " +
  "hypothesis has led for 2+ segments without confirming all constraints, " +
  "switch to a new search angle (consult Search angles tried).\n\n" +
  "You will get a [SYSTEM NOTE] warning just before each context reset as a " +
  "last chance to save state — but do not rely on it alone; update the " +
  "board whenever something is settled or ruled out.\n\n" +
  "### Current board:\n";

const EMPTY_BOARD = "(empty — start by listing the question's constraints; see the format above)";

/** The system prompt with the board block appended (an empty board shows how to start). */
export function progressSystem(base: string, board: string): string {
  return base + ADDENDUM_HEAD + (board || EMPTY_BOARD);
}

/** What survives a reset, as the warning names it. */
export function keptDescription(keepRounds: number): string {
  return keepRounds > 0 ? `the last ${keepRounds} rounds and your progress board` : "your progress board";
}

/** The save-the-board warning appended to the latest tool result before a reset. */
export function preResetBoardNudge(keepRounds: number): string {
  return (
    "\n\n[SYSTEM NOTE: Your context is about to be RESET — everything except " +
    `${keptDescription(keepRounds)} will be discarded. This is ` +
    "your last chance to save state: call update_progress NOW with the " +
    "complete board (constraints, confirmed facts with sources, ruled-out " +
    "candidates, search angles tried, working hypothesis). Do this before " +
    "any other action.]"
  );
}

/** An answer commit at a line start ("Exact Answer:", "Final Answer:", "Answer:"), not prose like "candidate answer:". */
const ANSWER_COMMIT_LINE = /^\s*(?:exact answer|final answer|answer)\s*:/i;
const ANSWER_COMMIT_ANYWHERE = /^\s*(?:exact answer|final answer|answer)\s*:/im;

/** Does the text commit an answer on some line? */
export function commitsAnswer(text: string): boolean {
  return ANSWER_COMMIT_ANYWHERE.test(text);
}

/** The tool result of an update_progress call (the commit guard when the board holds an answer). */
export function progressToolOutput(board: string): string {
  if (commitsAnswer(board)) {
    return "Progress board updated, BUT the board is NOT your final answer — the harness does not read answers from the board. To commit your answer, emit 'Exact Answer: ...' as a normal assistant message (no tool call).";
  }
  return `Progress board updated (${pyLen(board)} chars). It persists in the system prompt across context resets.`;
}

/** Python `str.splitlines()` boundaries. */
const LINE_BREAK = /\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]/;

/** The text of a message item (its output_text parts joined). */
export function messageText(item: Obj): string {
  if (item.type !== "message" || !Array.isArray(item.content)) return "";
  return (item.content as Obj[]).filter((c) => c.type === "output_text").map((c) => String(c.text ?? "")).join("");
}

/** Text of the last message item with content (the empty-answer retry keys on it, not on all text). */
export function lastMessageText(output: Obj[]): string {
  for (let i = output.length - 1; i >= 0; i--) {
    const t = messageText(output[i]!);
    if (t) return t;
  }
  return "";
}

/**
 * When the run ends without an answer commit in its last message but the board has one, surface the
 * board's last answer line: appended to that message's last text part, or as a new assistant message.
 * Returns the trajectory unchanged otherwise (never mutates it).
 */
export function recoverBoardAnswer(full: Obj[], board: string): Obj[] {
  if (!board) return full;
  let idx = -1;
  let lastText = "";
  for (let i = full.length - 1; i >= 0; i--) {
    const t = messageText(full[i]!);
    if (t) {
      idx = i;
      lastText = t;
      break;
    }
  }
  const lines = board.split(LINE_BREAK).filter((l) => ANSWER_COMMIT_LINE.test(l));
  if (lines.length === 0 || commitsAnswer(lastText)) return full;
  const recovered = `[Recovered from progress board] ${pyStrip(lines[lines.length - 1]!)}`;
  if (idx < 0) return [...full, { id: "msg_progress_board_recovery", content: [{ annotations: [], text: recovered, type: "output_text" }], role: "assistant", status: "completed", type: "message" }];
  const msg = full[idx]!;
  const content = [...(msg.content as Obj[])];
  for (let j = content.length - 1; j >= 0; j--) {
    if (content[j]!.type === "output_text") {
      content[j] = { ...content[j], text: `${String(content[j]!.text ?? "")}\n\n${recovered}` };
      break;
    }
  }
  return full.map((x, i) => (i === idx ? { ...msg, content } : x));
}

/** Token count past which the context resets: `context_reset_tokens` if set, else max × pct; 0 = never. */
export function resetThreshold(c: { contextResetTokens: number; maxContextTokens: number; contextResetPct: number }): number {
  if (c.contextResetTokens) return Math.trunc(c.contextResetTokens);
  if (c.maxContextTokens && c.contextResetPct) return Math.trunc(c.maxContextTokens * c.contextResetPct);
  return 0;
}

/** Hide every tool result but the last `keep` (new objects; the inputs are not changed). */
export function compactOldToolMessages(items: Obj[], keep: number): Obj[] {
  const tools = items.flatMap((m, i) => (m.type === "function_call_output" ? [i] : []));
  if (tools.length <= keep) return items;
  const hide = new Set(tools.slice(0, tools.length - keep));
  return items.map((m, i) => (hide.has(i) ? { ...m, output: HIDDEN_TOOL_RESULT } : m));
}

/**
 * The last `n` complete tool rounds (function calls + their outputs), in order. Tool outputs
 * with no function call before them are dropped; so is everything that is neither.
 */
export function extractLastRounds(items: Obj[], n: number): Obj[] {
  if (n <= 0) return [];
  const rounds: Obj[][] = [];
  let i = items.length - 1;
  while (i >= 0 && rounds.length < n) {
    if (items[i]!.type !== "function_call_output") {
      i--;
      continue;
    }
    const outs: Obj[] = [];
    while (i >= 0 && items[i]!.type === "function_call_output") outs.unshift(items[i--]!);
    const calls: Obj[] = [];
    while (i >= 0 && items[i]!.type === "function_call") calls.unshift(items[i--]!);
    if (calls.length > 0) rounds.unshift([...calls, ...outs]);
  }
  return rounds.flat();
}

/** The "[k turns remaining out of N]" line added to every tool result when `nudge_steps` is on. */
export function turnsRemaining(step: number, maxSteps: number): string {
  return `\n\n[${maxSteps - step} turns remaining out of ${maxSteps}]`;
}

/** The milestone note at a quarter, half and 87.5 % of `max_steps`, if this step is one. */
export function milestoneNudge(step: number, maxSteps: number): string | undefined {
  const pad = "\n\n\n\n\n";
  if (step === Math.floor(maxSteps / 4)) return `${pad}[SYSTEM NOTE: You have used ${step} out of ${maxSteps} turns. Please consider consolidating your findings and delivering an answer soon.]`;
  if (step === Math.floor(maxSteps / 2)) return `${pad}[SYSTEM NOTE: You have used ${step} out of ${maxSteps} turns — you are halfway through your budget. You should start formulating your final answer based on the research you have already done. Do not keep searching endlessly.]`;
  if (step === Math.trunc(maxSteps * 0.875)) return `${pad}[SYSTEM NOTE: URGENT — You have used ${step} out of ${maxSteps} turns. You are almost out of turns. YOU MUST deliver your final answer NOW using the information you have already gathered. Do NOT make any more tool calls. Provide your best answer immediately in the required format with 'Exact Answer:' on a line by itself.]`;
  return undefined;
}

/** A tool result as the model sees it: a `{"results_string": "…"}` envelope unwrapped to its raw text. */
export function unwrapResultsString(text: string): string {
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && typeof v.results_string === "string") return v.results_string;
  } catch {
    // Not JSON: shown as is.
  }
  return text;
}

/** The tool list with update_progress inserted before `bash_command` (else last), as the reference harness orders it. */
export function withProgressTool(tools: unknown[]): unknown[] {
  const at = tools.findIndex((t) => (t as Obj | null)?.name === "bash_command");
  const out = [...tools];
  out.splice(at < 0 ? out.length : at, 0, PROGRESS_TOOL);
  return out;
}

/** The answer text without `<think>` blocks, stripped (an empty result triggers the run's retry). */
export function withoutThink(text: string): string {
  return pyStrip(text.replace(/<think>[\s\S]*?<\/think>/g, ""));
}
