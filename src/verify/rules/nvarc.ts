/**
 * NVARC's transductive grading (upstream resources_servers/nvarc, `Board.from_text` with the integer
 * palette): the grid is read from the last `\boxed{…}` span (greedy, as upstream's regex) or the whole
 * reply, punctuation dropped, every word that is not a digit 0–9 dropped, one row per non-blank line;
 * ragged or empty grids are no answer. Python's Unicode `\s`/`\w` semantics are kept.
 */
import { pyRegex, translatePyRegex } from "../../util/py-regex.ts";
import { pySplit, pyStrip } from "../../util/py-str.ts";

type Obj = Record<string, unknown>;
type Grid = number[][];

const globalRe = (p: string, flags: { dotAll?: boolean } = {}) => {
  const t = translatePyRegex(p, flags);
  return new RegExp(t.source, `g${t.flags}`);
};
const THINK = globalRe("<think>.*?</think>", { dotAll: true });
const BOXED = pyRegex("\\\\boxed\\{(.+)\\}", { dotAll: true });
const PUNCT = globalRe("[^\\s\\w]");
const WORD = globalRe("\\b\\w+\\b");
const COLORS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

/** Upstream `_extract_assistant_text`: the text parts of assistant messages, joined by newlines, stripped. */
export function assistantText(response: unknown): string {
  const texts: string[] = [];
  for (const o of (((response as Obj | undefined)?.output ?? []) as Obj[])) {
    if (o?.type !== "message" || o.role !== "assistant") continue;
    if (Array.isArray(o.content)) for (const p of o.content as Obj[]) if (typeof p?.text === "string") texts.push(p.text);
    if (typeof o.content === "string") texts.push(o.content);
  }
  return pyStrip(texts.join("\n"));
}

/** `<think>…</think>` blocks removed, stripped. */
export function stripThinking(text: string): string {
  return pyStrip(text.replace(THINK, ""));
}

/** Upstream `_parse_grid`: the grid in a reply, or null when there is none or it is ragged. */
export function parseGrid(reply: string): Grid | null {
  let text = stripThinking(reply);
  const boxed = BOXED.search(text);
  if (boxed) text = boxed[1]!;
  text = text.replace(PUNCT, "").replace(WORD, (w) => (COLORS.includes(w) ? w : ""));
  const board: Grid = [];
  for (const line of text.split("\n")) if (pyStrip(line) !== "") board.push(pySplit(line).map((c) => COLORS.indexOf(c)));
  if (board.length === 0 || board[0]!.length === 0) return null;
  if (board.some((r) => r.length !== board[0]!.length)) return null;
  return board;
}

/** Python list equality of two grids. */
export function sameGrid(a: Grid | null, b: Grid): boolean {
  return a !== null && a.length === b.length && a.every((r, i) => r.length === b[i]!.length && r.every((c, j) => c === b[i]![j]));
}
