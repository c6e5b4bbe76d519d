/**
 * Punkt sentence splitter (Kiss & Strunk 2006) with NLTK's pretrained English parameters, behaving like
 * `PunktTokenizer("english").tokenize(text)` (nltk ≥ 3.8.2, `punkt_tab`): candidate breaks at `.?!`, a
 * first pass by token type (abbreviations, ellipses), a second pass with the collocation, orthographic
 * and sentence-starter heuristics, then boundary realignment of closing quotes and brackets.
 */
import PUNKT_JSON from "./data/punkt-english.json" with { type: "text" };
import { PY_SPACE, PY_WORD, pyIsLower, pyIsUpper, pyRstrip, pyStrip } from "./py-str.ts";

interface PunktParams {
  abbrevTypes: Set<string>;
  collocations: Set<string>;
  sentStarters: Set<string>;
  orthoContext: Map<string, number>;
}

let params: PunktParams | undefined;

/** The English parameters, parsed on first use (the JSON is ~280 KB). */
function englishParams(): PunktParams {
  if (params) return params;
  const raw = JSON.parse(PUNKT_JSON as unknown as string) as {
    abbrev_types: string[];
    collocations: [string, string][];
    sent_starters: string[];
    ortho_context: Record<string, number>;
  };
  params = {
    abbrevTypes: new Set(raw.abbrev_types),
    collocations: new Set(raw.collocations.map(([a, b]) => `${a}\u0000${b}`)),
    sentStarters: new Set(raw.sent_starters),
    orthoContext: new Map(Object.entries(raw.ortho_context)),
  };
  return params;
}

// Orthographic context flags (BEG/MID/UNK × upper/lower case).
const BEG_UC = 1 << 1;
const MID_UC = 1 << 2;
const UNK_UC = 1 << 3;
const BEG_LC = 1 << 4;
const MID_LC = 1 << 5;
const UNK_LC = 1 << 6;
const ORTHO_UC = BEG_UC + MID_UC + UNK_UC;
const ORTHO_LC = BEG_LC + MID_LC + UNK_LC;

const S = `[${PY_SPACE}]`;
const NS = `[^${PY_SPACE}]`;
const NON_WORD = `(?:[)";}\\]*:@'({\\[?!])`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = "[^(\"`{\\[:;&#*@)}\\]\\-,]";
const END = "(?![\\s\\S])";
const WORD_RE = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})${NS}+?(?=${S}|${END}|${NON_WORD}|${MULTI_CHAR}|,(?=${END}|${S}|${NON_WORD}|${MULTI_CHAR}))|${NS}`,
  "gu",
);
const PERIOD_CONTEXT_RE = new RegExp(`[.?!](?=(?<after_tok>${NON_WORD}|${S}+(?<next_tok>${NS}+)))`, "gdu");
const REALIGN_RE = new RegExp(`^["')\\]}]+?(?:${S}+|(?=--)|(?=\\n)|${END})`, "u");
const NUMERIC_RE = new RegExp(`^-?[.,]?\\p{Nd}[\\p{Nd},.-]*\\.?$`, "u");
const LETTER = `[\\p{L}\\p{Nl}\\p{No}_]`; // Python's [^\W\d]
const INITIAL_RE = new RegExp(`^${LETTER}\\.$`, "u");
const NON_PUNCT_RE = new RegExp(LETTER, "u");
const ELLIPSIS_RE = /^\.\.+$/;
const PUNCTUATION = new Set([";", ":", ",", ".", "!", "?"]);
const SENT_END = new Set([".", "?", "!"]);
const ASCII_WS = new Set([" ", "\t", "\n", "\r", "\x0b", "\x0c"]);

interface Tok {
  tok: string;
  type: string;
  periodFinal: boolean;
  parastart: boolean;
  linestart: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeTok(tok: string, parastart = false, linestart = false): Tok {
  const lower = tok.toLowerCase();
  return {
    tok,
    type: NUMERIC_RE.test(lower) ? "##number##" : lower,
    periodFinal: tok.endsWith("."),
    parastart,
    linestart,
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

const typeNoPeriod = (t: Tok) => (t.type.length > 1 && t.type.endsWith(".") ? t.type.slice(0, -1) : t.type);
const typeNoSentPeriod = (t: Tok) => (t.sentbreak ? typeNoPeriod(t) : t.type);
const firstChar = (t: Tok) => String.fromCodePoint(t.tok.codePointAt(0)!);
const firstUpper = (t: Tok) => pyIsUpper(firstChar(t));
const firstLower = (t: Tok) => pyIsLower(firstChar(t));

/** Punkt's own word split (periods stay attached), line by line, marking line and paragraph starts. */
function tokenizeWords(text: string): Tok[] {
  const out: Tok[] = [];
  let parastart = false;
  for (const line of text.split("\n")) {
    if (pyStrip(line)) {
      const toks = line.match(WORD_RE) ?? [];
      if (toks.length === 0) continue;
      out.push(makeTok(toks[0]!, parastart, true));
      parastart = false;
      for (let i = 1; i < toks.length; i++) out.push(makeTok(toks[i]!));
    } else {
      parastart = true;
    }
  }
  return out;
}

function firstPass(t: Tok, p: PunktParams): void {
  const tok = t.tok;
  if (SENT_END.has(tok)) t.sentbreak = true;
  else if (ELLIPSIS_RE.test(tok)) t.ellipsis = true;
  else if (t.periodFinal && !tok.endsWith("..")) {
    const stem = tok.slice(0, -1).toLowerCase();
    if (p.abbrevTypes.has(stem) || p.abbrevTypes.has(stem.split("-").at(-1)!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

function orthoHeuristic(t: Tok, p: PunktParams): boolean | "unknown" {
  if (PUNCTUATION.has(t.tok)) return false;
  const ctx = p.orthoContext.get(typeNoSentPeriod(t)) ?? 0;
  if (firstUpper(t) && ctx & ORTHO_LC && !(ctx & MID_UC)) return true;
  if (firstLower(t) && (ctx & ORTHO_UC || !(ctx & BEG_LC))) return false;
  return "unknown";
}

function secondPass(t1: Tok, t2: Tok | undefined, p: PunktParams): void {
  if (!t2 || !t1.periodFinal) return;
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentPeriod(t2);
  const isInitial = INITIAL_RE.test(t1.tok);
  if (p.collocations.has(`${typ}\u0000${nextTyp}`)) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !isInitial) {
    const starter = orthoHeuristic(t2, p);
    if (starter === true) {
      t1.sentbreak = true;
      return;
    }
    if (firstUpper(t2) && p.sentStarters.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (isInitial || typ === "##number##") {
    const starter = orthoHeuristic(t2, p);
    if (starter === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (starter === "unknown" && isInitial && firstUpper(t2) && !((p.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

function annotate(toks: Tok[], p: PunktParams): Tok[] {
  for (const t of toks) firstPass(t, p);
  for (let i = 0; i < toks.length; i++) secondPass(toks[i]!, toks[i + 1], p);
  return toks;
}

/** True when the context holds a sentence break followed by at least one more token. */
function containsSentBreak(context: string, p: PunktParams): boolean {
  let found = false;
  for (const t of annotate(tokenizeWords(context), p)) {
    if (found) return true;
    if (t.sentbreak) found = true;
  }
  return false;
}

/** Index of the last ASCII whitespace character, or 0 when there is none (NLTK's quirk: 0 also means "at 0"). */
function lastWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_WS.has(text[i]!)) return i;
  return 0;
}

interface EndMatch {
  start: number;
  end: number;
  afterTok: string;
  nextTokStart: number | undefined;
}

/** Candidate breaks with the text around them: the word before (found right to left), the mark, the token after. */
function* potentialEndContexts(text: string): Generator<[EndMatch, string]> {
  let prevStart = 0;
  let prevStop = 0;
  let prev: EndMatch | undefined;
  PERIOD_CONTEXT_RE.lastIndex = 0;
  for (const m of text.matchAll(PERIOD_CONTEXT_RE)) {
    const start = m.index;
    const before = text.slice(prevStop, start);
    let afterSpace = lastWhitespaceIndex(before);
    afterSpace = afterSpace ? afterSpace + prevStop + 1 : prevStart;
    const cur: EndMatch = {
      start,
      end: start + m[0].length,
      afterTok: m.groups?.after_tok ?? "",
      nextTokStart: m.groups?.next_tok ? m.indices!.groups!.next_tok![0] : undefined,
    };
    if (prev && prevStop <= afterSpace) yield [prev, text.slice(prevStart, prevStop) + text.slice(prev.start, prev.end) + prev.afterTok];
    prev = cur;
    prevStart = afterSpace;
    prevStop = start;
  }
  if (prev) yield [prev, text.slice(prevStart, prevStop) + text.slice(prev.start, prev.end) + prev.afterTok];
}

function slicesFromText(text: string, p: PunktParams): [number, number][] {
  const out: [number, number][] = [];
  let lastBreak = 0;
  for (const [m, context] of potentialEndContexts(text)) {
    if (containsSentBreak(context, p)) {
      out.push([lastBreak, m.end]);
      lastBreak = m.nextTokStart ?? m.end;
    }
  }
  out.push([lastBreak, pyRstrip(text).length]);
  return out;
}

function realign(text: string, slices: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let shift = 0;
  for (let i = 0; i < slices.length; i++) {
    const s1: [number, number] = [slices[i]![0] + shift, slices[i]![1]];
    const s2 = slices[i + 1];
    const nonEmpty = s1[1] > s1[0];
    if (!s2) {
      if (nonEmpty) out.push(s1);
      continue;
    }
    const m = REALIGN_RE.exec(text.slice(s2[0], s2[1]));
    if (m) {
      out.push([s1[0], s2[0] + pyRstrip(m[0]).length]);
      shift = m[0].length;
    } else {
      shift = 0;
      if (nonEmpty) out.push(s1);
    }
  }
  return out;
}

/** Split text into sentences exactly as NLTK's English Punkt tokenizer does (whitespace inside kept). */
export function punktSentences(text: string): string[] {
  const p = englishParams();
  return realign(text, slicesFromText(text, p)).map(([a, b]) => text.slice(a, b));
}

/** `len(sent_tokenize(text))` — upstream's `count_sentences`. */
export function countSentences(text: string): number {
  return punktSentences(text).length;
}

// Exported for the tokenizer tests: Punkt's own word split.
/** Punkt's word segmentation of one line (periods stay attached to words). */
export function punktWordTokens(line: string): string[] {
  return line.match(WORD_RE) ?? [];
}

/** Reference to the Python `\w` class body for callers that need the same word definition. */
export const PUNKT_WORD_CLASS = PY_WORD;
