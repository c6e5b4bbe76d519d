/**
 * The 25 original IFEval instructions as `verifiable-instructions` implements them (which differs from
 * Google's originals in places, e.g. `**double**` highlights also count and `-` lines are bullets).
 */
import { compare, randomKeyword, randomKeywords, relation, threshold } from "./_common.ts";
import { iterList, lower, num, strip, truthy, type Kwargs, type Rng } from "./args.ts";
import { detectLanguage, LangDetectError, LANGUAGE_CODES } from "./langdetect.ts";
import { countMatches, PyError, pyIsLower, pyIsUpper, pyLstripChars, pyRegex, pyRstripChars, pySplit, pyStrip, pyStripChars } from "./py-str.ts";
import { countSentences, countWords } from "./text.ts";
import { wordTokenize } from "./treebank.ts";
import type { InstructionSpec } from "./types.ts";

const none: readonly string[] = [];
const spec = (params: readonly string[], build: InstructionSpec["build"]): InstructionSpec => ({ params, build });

/** Upstream's json.loads accepts NaN/Infinity; JSON.parse does not. */
function pyJsonLoads(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    if (!/NaN|Infinity/.test(s)) return false;
    // Replace the bare constants outside strings, then parse again.
    let out = "";
    let inStr = false;
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      if (inStr) {
        out += c;
        if (c === "\\") out += s[++i] ?? "";
        else if (c === '"') inStr = false;
        continue;
      }
      if (c === '"') { inStr = true; out += c; continue; }
      if (s.startsWith("NaN", i)) { out += "0"; i += 2; continue; }
      if (s.startsWith("-Infinity", i)) { out += "0"; i += 8; continue; }
      if (s.startsWith("Infinity", i)) { out += "0"; i += 7; continue; }
      out += c;
    }
    try {
      JSON.parse(out);
      return true;
    } catch {
      return false;
    }
  }
}

function removePrefix(s: string, p: string): string {
  return s.startsWith(p) ? s.slice(p.length) : s;
}
function removeSuffix(s: string, p: string): string {
  return p && s.endsWith(p) ? s.slice(0, -p.length) : s;
}

/** `langdetect.detect(text) == lang`, where "cannot detect" counts as followed (upstream's choice). */
function languageIs(text: string, lang: string): boolean {
  try {
    return detectLanguage(text) === lang;
  } catch (e) {
    if (e instanceof LangDetectError) return true;
    throw e;
  }
}

/** Keyword patterns arrive as Python regexes (upstream passes them to `re` unescaped). */
function keywordRe(k: unknown, name: string, wrap = (s: string) => s): RegExp {
  if (typeof k !== "string") throw new PyError(`${name}: first argument must be string or compiled pattern`);
  return pyRegex(wrap(k), "i");
}

function paragraphsByDivider(value: string, want: (n: number) => boolean): boolean {
  const parts = value.split(pyRegex("\\s?\\*\\*\\*\\s?"));
  let n = parts.length;
  for (let i = 0; i < parts.length; i++) {
    if (!pyStrip(parts[i]!)) {
      if (i === 0 || i === parts.length - 1) n--;
      else return false;
    }
  }
  return want(n);
}

/** Exported for checks-ifevalg (paragraphs:paragraphs shares the rule). */
export { paragraphsByDivider };

/** The original IFEval ids. */
export const IFEVAL_CHECKS: Record<string, InstructionSpec> = {
  "keywords:existence": spec(["keywords"], (kw, rng) => {
    const words = truthy(kw.keywords) ? iterList(kw.keywords, "keywords") : randomKeywords(rng, 2);
    const res = words.map((w) => keywordRe(w, "keywords"));
    return (v) => res.every((re) => re.test(v));
  }),
  "keywords:frequency": spec(["keyword", "frequency", "relation"], (kw, rng) => {
    const re = keywordRe(truthy(kw.keyword) ? strip(kw.keyword, "keyword") : randomKeyword(rng), "keyword");
    const freq = threshold(kw.frequency, rng, 1, 3, "frequency");
    const rel = relation(kw.relation, rng);
    return (v) => compare(countMatches(re, v), rel, freq);
  }),
  "keywords:forbidden_words": spec(["forbidden_words"], (kw, rng) => {
    const words = truthy(kw.forbidden_words) ? iterList(kw.forbidden_words, "forbidden_words") : randomKeywords(rng, 2);
    for (const w of words) if (w !== null && typeof w === "object") throw new PyError("forbidden_words: unhashable type");
    const res = words.map((w) => {
      if (typeof w !== "string") throw new PyError(`forbidden_words: can only concatenate str (not "${typeof w}") to str`);
      return pyRegex(`\\b${w}\\b`, "i");
    });
    return (v) => !res.some((re) => re.test(v));
  }),
  "keywords:letter_frequency": spec(["letter", "let_frequency", "let_relation"], letterFrequency),
  "language:response_language": spec(["language"], (kw, rng) => {
    const lang = kw.language === undefined ? rng.choice(Object.keys(LANGUAGE_CODES)) : kw.language;
    if (typeof lang !== "string" || !(lang in LANGUAGE_CODES)) throw new PyError(`KeyError: ${JSON.stringify(lang)} (language must be one of ${Object.keys(LANGUAGE_CODES).join(", ")})`);
    return (v) => languageIs(v, lang);
  }),
  "length_constraints:number_sentences": spec(["num_sentences", "relation"], (kw, rng) => {
    const n = threshold(kw.num_sentences, rng, 1, 20, "num_sentences");
    const rel = relation(kw.relation, rng);
    return (v) => compare(countSentences(v), rel, n);
  }),
  "length_constraints:number_paragraphs": spec(["num_paragraphs"], (kw, rng) => {
    const n = threshold(kw.num_paragraphs, rng, 1, 5, "num_paragraphs");
    return (v) => paragraphsByDivider(v, (got) => got === n);
  }),
  "length_constraints:number_words": spec(["num_words", "relation"], (kw, rng) => {
    const n = threshold(kw.num_words, rng, 100, 500, "num_words");
    const rel = relation(kw.relation, rng);
    return (v) => compare(countWords(v), rel, n);
  }),
  "length_constraints:nth_paragraph_first_word": spec(["num_paragraphs", "nth_paragraph", "first_word"], (kw, rng) => {
    const numParas = threshold(kw.num_paragraphs, rng, 1, 5, "num_paragraphs");
    let nth = kw.nth_paragraph === undefined ? undefined : num(kw.nth_paragraph, "nth_paragraph");
    if (nth === undefined || nth <= 0 || nth > numParas) nth = rng.randint(1, Math.floor(numParas) + 1);
    const want = lower(kw.first_word === undefined ? randomKeyword(rng) : kw.first_word, "first_word");
    const nthIndex = nth;
    return (v) => {
      const paras = v.split("\n\n");
      let count = paras.length;
      for (const p of paras) if (!pyStrip(p)) count--;
      if (!(nthIndex <= count)) return false;
      if (!Number.isInteger(nthIndex)) throw new PyError("list indices must be integers or slices, not float");
      const para = pyStrip(paras[nthIndex - 1]!);
      if (!para) return false;
      let word = pyStrip(pySplit(para)[0]!);
      word = pyLstripChars(pyLstripChars(word, "'"), '"');
      let first = "";
      for (const ch of word) {
        if (".,?!'\"".includes(ch)) break;
        first += ch.toLowerCase();
      }
      return count === numParas && first === want;
    };
  }),
  "detectable_content:number_placeholders": spec(["num_placeholders"], (kw, rng) => {
    const n = threshold(kw.num_placeholders, rng, 1, 4, "num_placeholders");
    const re = pyRegex("\\[.*?\\]");
    return (v) => countMatches(re, v) >= n;
  }),
  "detectable_content:postscript": spec(["postscript_marker"], (kw, rng) => {
    const marker = typeof kw.postscript_marker === "string" ? pyStrip(kw.postscript_marker) : kw.postscript_marker === undefined ? rng.choice(["P.S.", "P.P.S"]) : kw.postscript_marker;
    let pattern: string;
    if (marker === "P.P.S") pattern = "\\s*p\\.\\s?p\\.\\s?s.*$";
    else if (marker === "P.S.") pattern = "\\s*p\\.\\s?s\\..*$";
    else pattern = `\\s*${lower(marker, "postscript_marker")}.*$`;
    const re = pyRegex(pattern, "m");
    return (v) => re.test(v.toLowerCase());
  }),
  "detectable_format:number_bullet_lists": spec(["num_bullets"], (kw, rng) => {
    const n = threshold(kw.num_bullets, rng, 1, 5, "num_bullets");
    const star = pyRegex("^\\s*\\*[^\\*].*$", "m");
    const dash = pyRegex("^\\s*-.*$", "m");
    return (v) => countMatches(star, v) + countMatches(dash, v) === n;
  }),
  "detectable_format:constrained_response": spec(none, () => {
    const options = ["My answer is yes.", "My answer is no.", "My answer is maybe."];
    return (v) => {
      const s = pyStrip(v);
      return options.some((o) => s.includes(o));
    };
  }),
  "detectable_format:number_highlighted_sections": spec(["num_highlights"], (kw, rng) => {
    const n = threshold(kw.num_highlights, rng, 1, 4, "num_highlights");
    const single = /\*[^\n*]*\*/g;
    const double = /\*\*[^\n*]*\*\*/g;
    return (v) => {
      let count = 0;
      for (const m of v.matchAll(single)) if (pyStrip(pyStripChars(m[0], "*"))) count++;
      for (const m of v.matchAll(double)) if (pyStrip(removeSuffix(removePrefix(m[0], "**"), "**"))) count++;
      return count >= n;
    };
  }),
  "detectable_format:multiple_sections": spec(["section_spliter", "num_sections"], (kw, rng) => {
    const splitter = typeof kw.section_spliter === "string" ? pyStrip(kw.section_spliter) : kw.section_spliter === undefined ? rng.choice(["Section", "SECTION"]) : kw.section_spliter;
    const n = threshold(kw.num_sections, rng, 1, 5, "num_sections");
    if (typeof splitter !== "string") throw new PyError(`section_spliter: can only concatenate str (not "${typeof splitter}") to str`);
    const re = pyRegex(`\\s?${splitter}\\s?\\d+\\s?`);
    const groups = new RegExp(`${re.source}|`, re.flags).exec("")!.length - 1;
    // len(re.split(...)) - 1: each match adds one piece plus one per capturing group.
    return (v) => countMatches(re, v) * (1 + groups) >= n;
  }),
  "detectable_format:json_format": spec(none, () => (v) => {
    let s = pyStrip(v);
    for (const p of ["```json", "```Json", "```JSON", "```"]) s = removePrefix(s, p);
    s = pyStrip(removeSuffix(s, "```"));
    return pyJsonLoads(s);
  }),
  "detectable_format:title": spec(none, () => (v) => {
    for (const m of v.matchAll(/<<[^\n]+>>/g)) if (pyStrip(pyRstripChars(pyLstripChars(m[0], "<"), ">"))) return true;
    return false;
  }),
  "combination:two_responses": spec(none, () => (v) => {
    const parts = v.split("******");
    const valid: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      if (!pyStrip(parts[i]!)) {
        if (i !== 0 && i !== parts.length - 1) return false;
      } else valid.push(parts[i]!);
    }
    return valid.length === 2 && pyStrip(valid[0]!) !== pyStrip(valid[1]!);
  }),
  "combination:repeat_prompt": spec(["prompt_to_repeat"], (kw) => {
    if (!truthy(kw.prompt_to_repeat)) throw new PyError("prompt_to_repeat must be set.");
    const prompt = kw.prompt_to_repeat;
    return (v) => pyStrip(v).toLowerCase().startsWith(strip(prompt, "prompt_to_repeat").toLowerCase());
  }),
  "startend:end_checker": spec(["end_phrase"], (kw, rng) => {
    const phrase = typeof kw.end_phrase === "string" ? pyStrip(kw.end_phrase) : kw.end_phrase === undefined ? rng.choice(["Any other questions?", "Is there anything else I can help with?"]) : kw.end_phrase;
    return (v) => pyStripChars(pyStrip(v), '"').toLowerCase().endsWith(strip(phrase, "end_phrase").toLowerCase());
  }),
  "change_case:capital_word_frequency": spec(["capital_frequency", "capital_relation"], (kw, rng) => {
    const freq = kw.capital_frequency === undefined ? rng.randint(1, 20) : kw.capital_frequency;
    const rel = relation(kw.capital_relation, rng, "capital_relation");
    return (v) => {
      const caps = wordTokenize(v).filter(pyIsUpper).length;
      return compare(caps, rel, num(freq, "capital_frequency"));
    };
  }),
  "change_case:english_capital": spec(none, () => (v) => pyIsUpper(v) && languageIs(v, "en")),
  "change_case:english_lowercase": spec(none, () => (v) => pyIsLower(v) && languageIs(v, "en")),
  "punctuation:no_comma": spec(none, () => (v) => !v.includes(",")),
  "startend:quotation": spec(none, () => (v) => {
    const s = [...pyStrip(v)];
    return s.length > 1 && s[0] === '"' && s.at(-1) === '"';
  }),
};

/** LetterFrequencyChecker (keywords:letter_frequency and letters:letter_counting2). */
export function letterFrequency(kw: Kwargs, rng: Rng) {
  const l = kw.letter;
  let letter: string;
  const bad = (): boolean => {
    if (!truthy(l)) return true;
    if (typeof l === "number" || typeof l === "boolean") throw new PyError(`letter: object of type '${typeof l}' has no len()`);
    const len = typeof l === "string" ? [...l].length : Array.isArray(l) ? l.length : Object.keys(l as object).length;
    if (len > 1) return true;
    const lc = lower(l, "letter");
    const code = lc.codePointAt(0)!;
    if ([...lc].length !== 1) throw new PyError("letter: ord() expected a character");
    return code < 97 || code > 122;
  };
  letter = bad() ? rng.choice([..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"]) : pyStrip(l as string);
  letter = letter.toLowerCase();
  const freq = threshold(kw.let_frequency, rng, 1, 10, "let_frequency");
  const rel = relation(kw.let_relation, rng, "let_relation");
  return (v: string) => {
    let count = 0;
    for (const ch of v.toLowerCase()) if (ch === letter) count++;
    return compare(count, rel, freq);
  };
}
