/**
 * The IFEvalG ("open-instruct") additions that `verifiable-instructions` registers: copying, word
 * positions, counting, paragraphs by blank lines, punctuation bans and the like. Quirks of upstream are
 * kept on purpose (e.g. `n_start: 0` counts as missing, repeat_phrase judges only the last phrase's edits).
 */
import { pyIndex, pySlice, randomKeyword } from "./_common.ts";
import { int, iterList, num, strip, truthy, type Kwargs, type Rng } from "./args.ts";
import { letterFrequency, paragraphsByDivider } from "./checks-ifeval.ts";
import { countMatches, PyError, pyRegex, pySplit, pyStrip } from "./py-str.ts";
import { splitIntoSentences } from "./text.ts";
import { wordTokenize } from "./treebank.ts";
import type { InstructionSpec } from "./types.ts";

const none: readonly string[] = [];
const spec = (params: readonly string[], build: InstructionSpec["build"]): InstructionSpec => ({ params, build });

const PHRASES = [
  "Dance like nobody is watching you",
  "The early bird catches the worm",
  "Time flies when having fun",
  "Every cloud has a silver lining",
  "Actions speak louder than words",
  "Don't judge a book by cover",
  "Live each day to the fullest",
  "All that glitters is not gold",
  "Laughter is the best medicine",
  "The pen is mightier than sword",
];

const requirePrompt = (kw: Kwargs): unknown => {
  if (!truthy(kw.prompt_to_repeat)) throw new PyError("prompt_to_repeat must be set.");
  return kw.prompt_to_repeat;
};
const same = (a: string, b: unknown, name: string) => pyStrip(a).toLowerCase() === strip(b, name).toLowerCase();
const keyword = (kw: Kwargs, key: string, rng: Rng) => (truthy(kw[key]) ? strip(kw[key], key) : randomKeyword(rng));
const keywordRe = (k: string) => pyRegex(k, "i");
const NON_WORD_CHARS = pyRegex("[^\\w\\s]");
const firstCodePoint = (s: string) => String.fromCodePoint(s.codePointAt(0)!);
const reverse = (s: string) => [...s].reverse().join("");
const smallN = (v: unknown, rng: Rng) => (truthy(v) ? v : rng.randint(2, 3));

function paragraphsByBlankLine(value: string): boolean {
  const parts = value.split("\n\n");
  let n = parts.length;
  for (let i = 0; i < parts.length; i++) {
    if (!pyStrip(parts[i]!)) {
      if (i === 0 || i === parts.length - 1) n--;
      else return false;
    }
  }
  return n === 2;
}

/** The IFEvalG ids. */
export const IFEVALG_CHECKS: Record<string, InstructionSpec> = {
  "copy:repeat_phrase": spec(["phrase", "small_n"], (kw, rng) => {
    const phrase = truthy(kw.phrase) ? strip(kw.phrase, "phrase") : rng.choice(PHRASES);
    const n = smallN(kw.small_n, rng);
    return (v) => {
      const ref = pySplit(phrase);
      const first = pyIndex(ref, 0, "phrase");
      const last = pyIndex(ref, -1, "phrase");
      const found = [...v.matchAll(new RegExp(pyRegex(`${first} .*? ${last}`).source, "gu"))].map((m) => m[0]);
      if (found.length !== n) return false;
      let differences = 0;
      for (const f of found) {
        const words = pySplit(f);
        differences = 0;
        if (words.length !== ref.length) return false;
        for (let i = 0; i < words.length; i++) {
          if (words[i] !== ref[i]) {
            differences++;
            if (differences > 1) return false;
          }
        }
      }
      return differences === 1;
    };
  }),
  "copy:copy": spec(["prompt_to_repeat"], (kw) => {
    const prompt = requirePrompt(kw);
    return (v) => same(v, prompt, "prompt_to_repeat");
  }),
  "new:copy_span_idx": spec(["prompt_to_repeat", "n_start", "n_end"], (kw, rng) => {
    const prompt = requirePrompt(kw);
    if (typeof prompt !== "string") throw new PyError("prompt_to_repeat: expected a string");
    const len = [...prompt].length;
    const start = truthy(kw.n_start) ? int(kw.n_start, "n_start") : rng.randint(0, len - 2);
    const end = truthy(kw.n_end) ? int(kw.n_end, "n_end") : rng.randint(start + 1, len - 1);
    return (v) => pyStrip(v).toLowerCase() === pyStrip(pySlice(prompt, start, end)).toLowerCase();
  }),
  "detectable_format:sentence_hyphens": spec(none, () => (v) => {
    const gold = splitIntoSentences(v.replaceAll("-", " "));
    const parts = v.split("-");
    for (let i = 0; i < Math.min(parts.length, gold.length); i++) {
      if (pyStrip(parts[i]!) !== parts[i]) return false;
      if (parts[i] !== gold[i]) return false;
    }
    return true;
  }),
  "keywords:no_adjacent_consecutive": spec(none, () => (v) => {
    const words = pySplit(v);
    for (let i = 0; i < words.length - 1; i++) {
      const a = firstCodePoint(words[i]!).toLowerCase();
      const b = firstCodePoint(words[i + 1]!).toLowerCase();
      if ([...a].length !== 1 || [...b].length !== 1) return false;
      if (b.codePointAt(0)! - a.codePointAt(0)! === 1) return false;
    }
    return true;
  }),
  "detectable_format:square_brackets": spec(none, () => (v) => pySplit(v).every((w) => w.startsWith("[") && w.endsWith("]"))),
  "keywords:word_once": spec(["keyword"], (kw, rng) => {
    const re = keywordRe(keyword(kw, "keyword", rng));
    return (v) => countMatches(re, v) === 1;
  }),
  "keywords:word_count_different_numbers": spec(["keyword", "frequency", "relation"], (kw, rng) => {
    // Same rule as keywords:frequency (only the description differs upstream).
    const re = keywordRe(keyword(kw, "keyword", rng));
    let freq = kw.frequency === undefined ? undefined : num(kw.frequency, "frequency");
    if (freq === undefined || freq < 0) freq = rng.randint(1, 3);
    const rel = kw.relation === undefined ? rng.choice(["less than", "at least"] as const) : kw.relation;
    if (rel !== "less than" && rel !== "at least") throw new PyError(`The supported relation for comparison must be in ('less than', 'at least'), but ${JSON.stringify(rel)} is given.`);
    const f = freq;
    return (v) => (rel === "less than" ? countMatches(re, v) < f : countMatches(re, v) >= f);
  }),
  "keywords:exclude_word_harder": spec(["keyword", "instruction"], (kw, rng) => {
    let word: string;
    if (truthy(kw.keyword)) word = strip(kw.keyword, "keyword");
    else {
      if (typeof kw.instruction !== "string") throw new PyError("instruction: 'NoneType' object has no attribute 'split'");
      word = rng.choice(pySplit(kw.instruction));
    }
    return (v) => !v.includes(` ${word} `);
  }),
  "paragraphs:paragraphs": spec(none, () => (v) => paragraphsByDivider(v, (n) => n === 2)),
  "paragraphs:paragraphs2": spec(none, () => paragraphsByBlankLine),
  "first_word:first_word_sent": spec(["first_word"], (kw, rng) => {
    let word: string;
    if (!truthy(kw.first_word)) word = randomKeyword(rng);
    else if (typeof kw.first_word !== "string") throw new PyError("first_word: object has no attribute '_first_word'");
    else word = pyStrip(kw.first_word);
    return (v) => {
      for (const s of splitIntoSentences(v)) {
        if (!pyStrip(s)) return false;
        if (pyStrip(pySplit(s)[0]!).toLowerCase() !== word.toLowerCase()) return false;
      }
      return true;
    };
  }),
  "first_word:first_word_answer": spec(["first_word"], (kw, rng) => {
    const word = keyword(kw, "first_word", rng);
    return (v) => {
      const words = pySplit(v);
      if (!pyStrip(v) || words.length === 0) return false;
      return pyStrip(words[0]!).toLowerCase() === word.toLowerCase();
    };
  }),
  "last_word:last_word_sent": spec(["last_word"], (kw, rng) => {
    let word: string;
    if (!truthy(kw.last_word)) word = randomKeyword(rng);
    else if (typeof kw.last_word === "string") word = pyStrip(kw.last_word);
    else word = strip(pyIndex(iterList(kw.last_word, "last_word"), 0, "last_word"), "last_word");
    return (v) => {
      for (const s of splitIntoSentences(v)) {
        if (!pyStrip(s)) return false;
        const last = pyStrip(pySplit(s).at(-1)!).replace(new RegExp(NON_WORD_CHARS.source, "gu"), "");
        if (last.toLowerCase() !== word.toLowerCase()) return false;
      }
      return true;
    };
  }),
  "last_word:last_word_answer": spec(["last_word"], (kw, rng) => {
    const word = keyword(kw, "last_word", rng);
    return (v) => {
      const last = pyStrip(pyIndex(pySplit(v), -1, "split")).replace(new RegExp(NON_WORD_CHARS.source, "gu"), "");
      return last.toLowerCase() === word.toLowerCase();
    };
  }),
  "detectable_format:bigram_wrapping": spec(none, () => (v) => {
    const words = pySplit(v);
    for (let i = 0; i < words.length - 1; i += 2) if (!(words[i]!.startsWith("<<") && words[i + 1]!.endsWith(">>"))) return false;
    return true;
  }),
  "copy:copying_simple": spec(["prompt_to_repeat"], (kw) => {
    const prompt = requirePrompt(kw);
    return (v) => same(v, prompt, "prompt_to_repeat");
  }),
  "copy:copying_multiple": spec(["prompt_to_repeat", "N"], (kw, rng) => {
    const prompt = requirePrompt(kw);
    const n = smallN(kw.N, rng);
    return (v) => {
      const parts = v.split("******");
      if (parts.length !== n) return false;
      return parts.every((p) => same(p, prompt, "prompt_to_repeat"));
    };
  }),
  "punctuation:punctuation_dot": spec(none, () => (v) => !v.includes(".")),
  "punctuation:punctuation_exclamation": spec(none, () => (v) => !v.includes("!")),
  "count:lowercase_counting": spec(["N"], (kw, rng) => {
    const n = smallN(kw.N, rng);
    const re = pyRegex("\\b[a-z]+\\b");
    return (v) => countMatches(re, v) <= num(n, "N");
  }),
  "letters:letter_counting": spec(["N", "relation"], (kw, rng) => {
    const n = smallN(kw.N, rng);
    const rel = truthy(kw.relation) ? kw.relation : rng.choice(["less than", "at least"]);
    return (v) => {
      const letters = countMatches(/[a-zA-Z]/g, v);
      if (rel === "at least") return letters >= num(n, "N");
      if (rel === "less than") return letters < num(n, "N");
      return false;
    };
  }),
  "letters:letter_counting2": spec(["letter", "let_frequency", "let_relation"], letterFrequency),
  "count:counting_composition": spec(["n_sent", "n_words"], (kw, rng) => {
    const nSent = smallN(kw.n_sent, rng);
    const nWords = smallN(kw.n_words, rng);
    return (v) => {
      const parts = v.split(pyRegex("\\s?\\*\\*\\*\\s?"));
      let n = parts.length;
      for (let i = 0; i < parts.length; i++) {
        if (!pyStrip(parts[i]!)) {
          if (i === 0 || i === parts.length - 1) n--;
          else return false;
        }
        const sentences = splitIntoSentences(parts[i]!);
        if (sentences.length !== nSent) return false;
        for (const s of sentences) if (wordTokenize(s).length !== nWords) return false;
      }
      return n === 3;
    };
  }),
  "count:count_unique": spec(none, () => (v) => {
    const words = wordTokenize(v);
    return words.length === new Set(words).size;
  }),
  "count:count_increment_word": spec(["keyword1", "keyword2"], (kw) => {
    // A missing keyword becomes a *list* upstream (generate_keywords), which `re` then rejects.
    if (!truthy(kw.keyword1) || !truthy(kw.keyword2)) throw new PyError("count_increment_word: a missing keyword makes upstream pass a list to re.findall (TypeError)");
    const re1 = keywordRe(strip(kw.keyword1, "keyword1"));
    const re2 = keywordRe(strip(kw.keyword2, "keyword2"));
    return (v) => countMatches(re1, v) === 1 && countMatches(re2, v) === 2;
  }),
  "keywords:palindrome": spec(none, () => (v) => pySplit(v).some((w) => w === reverse(w))),
  "keywords:keyword_specific_position": spec(["keyword", "n", "m"], (kw, rng) => {
    let word: string;
    if (!truthy(kw.keyword)) word = randomKeyword(rng);
    else if (typeof kw.keyword === "string") word = pyStrip(kw.keyword);
    else word = strip(pyIndex(iterList(kw.keyword, "keyword"), 0, "keyword"), "keyword");
    const n = truthy(kw.n) ? int(kw.n, "n") : rng.randint(1, 20);
    const m = truthy(kw.m) ? int(kw.m, "m") : rng.randint(1, 30);
    return (v) => {
      const sentences = splitIntoSentences(v);
      if (sentences.length < n) return false;
      const words = wordTokenize(pyIndex(sentences, n - 1, "sentences"));
      if (words.length < m) return false;
      return pyIndex(words, m - 1, "words") === word;
    };
  }),
  "keywords:start_end": spec(none, () => (v) => {
    const words = wordTokenize(v);
    if (words.length < 2) return false;
    return words[0]!.toLowerCase() === words.at(-1)!.toLowerCase();
  }),
};
