/**
 * Language detection equal to Python's `langdetect` 1.0.9 (a port of Cybozu's language-detection) with
 * a fixed seed: same text normalisation (URLs, e-mails, Vietnamese marks, CJK classes), same 1–3-gram
 * features, same 7 seeded trials of naive-Bayes updates on CPython's Mersenne Twister. Upstream leaves
 * the seed unset (answers may change between runs); we use seed 0 so a verdict never changes.
 * The 55 language profiles ship as data/langdetect-profiles.json, parsed on the first detection.
 */
import PROFILES_JSON from "./data/langdetect-profiles.json" with { type: "text" };
import { PyRandom } from "../../util/py-random.ts";

/** `langdetect.LangDetectException` ("No features in text."): upstream counts the instruction as followed. */
export class LangDetectError extends Error {
  override name = "LangDetectError";
}

/** The ISO 639-1 codes `language:response_language` accepts (upstream's LANGUAGE_CODES). */
export const LANGUAGE_CODES: Record<string, string> = {
  en: "English", es: "Spanish", pt: "Portuguese", ar: "Arabic", hi: "Hindi", fr: "French", ru: "Russian", de: "German",
  ja: "Japanese", it: "Italian", bn: "Bengali", uk: "Ukrainian", th: "Thai", ur: "Urdu", ta: "Tamil", te: "Telugu",
  bg: "Bulgarian", ko: "Korean", pl: "Polish", he: "Hebrew", fa: "Persian", vi: "Vietnamese", ne: "Nepali", sw: "Swahili",
  kn: "Kannada", mr: "Marathi", gu: "Gujarati", pa: "Punjabi", ml: "Malayalam", fi: "Finnish",
};

/** The seed we fix (upstream: unseeded). */
export const LANGDETECT_SEED = 0;

interface Model {
  langs: string[];
  probs: Map<string, Float64Array>;
  cjk: Map<string, string>;
  viAlphabet: string;
  viMarks: string;
  viNormalized: string[][];
  viRe: RegExp;
  latin1Excluded: string;
}

let model: Model | undefined;

function load(): Model {
  if (model) return model;
  const raw = JSON.parse(PROFILES_JSON as unknown as string) as {
    langs: string[];
    profiles: Record<string, { n_words: number[]; freq: Record<string, number> }>;
    cjk: string;
    vi_to_normalize: string;
    vi_dmark: string;
    vi_normalized: string[];
    latin1_excluded: string;
  };
  const probs = new Map<string, Float64Array>();
  raw.langs.forEach((lang, idx) => {
    const p = raw.profiles[lang]!;
    for (const [word, count] of Object.entries(p.freq)) {
      let row = probs.get(word);
      if (!row) probs.set(word, (row = new Float64Array(raw.langs.length)));
      row[idx] = (1.0 * count) / p.n_words[[...word].length - 1]!;
    }
  });
  const cjk = new Map<string, string>();
  const pairs = [...raw.cjk];
  for (let i = 0; i + 1 < pairs.length; i += 2) cjk.set(pairs[i]!, pairs[i + 1]!);
  model = {
    langs: raw.langs,
    probs,
    cjk,
    viAlphabet: raw.vi_to_normalize,
    viMarks: raw.vi_dmark,
    viNormalized: raw.vi_normalized.map((s) => [...s]),
    viRe: new RegExp(`([${raw.vi_to_normalize}])([${raw.vi_dmark}])`, "gu"),
    latin1Excluded: raw.latin1_excluded,
  };
  return model;
}

const URL_RE = /https?:\/\/[-_.?&~;+=/#0-9A-Za-z]{1,2076}/g;
const MAIL_RE = /[-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}/g;
const MAX_TEXT = 10000;
const N_TRIAL = 7;
const ALPHA = 0.5;
const ALPHA_WIDTH = 0.05;
const ITERATION_LIMIT = 1000;
const PROB_THRESHOLD = 0.1;
const CONV_THRESHOLD = 0.99999;
const BASE_FREQ = 10000;

const isUpper1 = (ch: string) => /\p{Uppercase}/u.test(ch) && !/\p{Lowercase}|\p{Lt}/u.test(ch);

/** NGram.normalize: fold a character to its class representative (or a space). */
function normalize(ch: string, m: Model): string {
  const cp = ch.codePointAt(0)!;
  if (cp <= 0x7f) return ch < "A" || (ch > "Z" && ch < "a") || ch > "z" ? " " : ch;
  if (cp <= 0xff) return m.latin1Excluded.includes(ch) ? " " : ch;
  if (cp >= 0x180 && cp <= 0x24f) return cp === 0x219 ? "\u015f" : cp === 0x21b ? "\u0163" : ch;
  if (cp >= 0x2000 && cp <= 0x206f) return " ";
  if (cp >= 0x600 && cp <= 0x6ff) return cp === 0x6cc ? "\u064a" : ch;
  if (cp >= 0x1e00 && cp <= 0x1eff) return cp >= 0x1ea0 ? "\u1ec3" : ch;
  if (cp >= 0x3040 && cp <= 0x309f) return "\u3042";
  if (cp >= 0x30a0 && cp <= 0x30ff) return "\u30a2";
  if ((cp >= 0x3100 && cp <= 0x312f) || (cp >= 0x31a0 && cp <= 0x31bf)) return "\u3105";
  if (cp >= 0x4e00 && cp <= 0x9fff) return m.cjk.get(ch) ?? ch;
  if (cp >= 0xac00 && cp <= 0xd7af) return "\uac00";
  return ch;
}

/** Detector.append: strip URLs and e-mails, fold Vietnamese marks, keep ≤ 10000 chars, squeeze double spaces. */
function prepare(text: string, m: Model): string[] {
  let t = text.replace(URL_RE, " ").replace(MAIL_RE, " ");
  t = t.replace(m.viRe, (_all, a: string, d: string) => m.viNormalized[m.viMarks.indexOf(d)]![[...m.viAlphabet].indexOf(a)]!);
  const cps = [...t];
  const out: string[] = [];
  let pre = "";
  for (let i = 0; i < Math.min(cps.length, MAX_TEXT); i++) {
    const ch = cps[i]!;
    if (ch !== " " || pre !== " ") out.push(ch);
    pre = ch;
  }
  // cleaning_text: drop Latin letters from mostly non-Latin text. Upstream compares a block id with a
  // block *name* here, so every character from U+0300 up counts as non-Latin; kept as is.
  let latin = 0;
  let nonLatin = 0;
  for (const ch of out) {
    if (ch >= "A" && ch <= "z") latin++;
    else if (ch >= "\u0300") nonLatin++;
  }
  if (latin * 2 < nonLatin) return out.filter((ch) => ch < "A" || ch > "z");
  return out;
}

/** Detector._extract_ngrams: every known 1–3-gram, skipping words in capitals. */
function extractNgrams(chars: string[], m: Model): string[] {
  const result: string[] = [];
  let grams: string[] = [" "];
  let capital = false;
  for (const raw of chars) {
    const ch = normalize(raw, m);
    const last = grams.at(-1)!;
    if (last === " ") {
      grams = [" "];
      capital = false;
      if (ch === " ") continue;
    } else if (grams.length >= 3) grams = grams.slice(1);
    grams.push(ch);
    if (isUpper1(ch)) {
      if (isUpper1(last)) capital = true;
    } else capital = false;
    if (capital) continue;
    for (let n = 1; n <= 3; n++) {
      if (grams.length < n) break;
      const w = grams.slice(-n).join("");
      if (w && w !== " " && m.probs.has(w)) result.push(w);
    }
  }
  return result;
}

/** `langdetect.detect(text)` with seed 0: the most probable language code, or "unknown". */
export function detectLanguage(text: string): string {
  const probs = detectProbabilities(text);
  return probs[0]?.[0] ?? "unknown";
}

/** `detect_langs(text)`: languages above 0.1, most probable first. */
export function detectProbabilities(text: string, seed = LANGDETECT_SEED): [string, number][] {
  const m = load();
  const ngrams = extractNgrams(prepare(text, m), m);
  if (ngrams.length === 0) throw new LangDetectError("No features in text.");
  const L = m.langs.length;
  const langprob = new Float64Array(L);
  const rnd = new PyRandom(seed);
  for (let t = 0; t < N_TRIAL; t++) {
    const prob = new Float64Array(L).fill(1.0 / L);
    const alpha = ALPHA + rnd.gauss(0.0, 1.0) * ALPHA_WIDTH;
    const weight = alpha / BASE_FREQ;
    for (let i = 0; ; i++) {
      const row = m.probs.get(ngrams[rnd.randbelow(ngrams.length)]!)!;
      for (let j = 0; j < L; j++) prob[j]! *= weight + row[j]!;
      if (i % 5 === 0) {
        let sum = 0;
        for (let j = 0; j < L; j++) sum += prob[j]!;
        let maxp = 0;
        for (let j = 0; j < L; j++) {
          const p = prob[j]! / sum;
          if (maxp < p) maxp = p;
          prob[j] = p;
        }
        if (maxp > CONV_THRESHOLD || i >= ITERATION_LIMIT) break;
      }
    }
    for (let j = 0; j < L; j++) langprob[j]! += prob[j]! / N_TRIAL;
  }
  const out: [string, number][] = [];
  for (let j = 0; j < L; j++) if (langprob[j]! > PROB_THRESHOLD) out.push([m.langs[j]!, langprob[j]!]);
  // Python's list.sort(reverse=True) is stable for equal probabilities.
  return out.map((x, i) => [x, i] as const).sort((a, b) => b[0][1] - a[0][1] || a[1] - b[1]).map(([x]) => x);
}
