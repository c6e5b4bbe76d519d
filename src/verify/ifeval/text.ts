/**
 * The text helpers of upstream's `instructions_util`: the rule-based `split_into_sentences` (not Punkt),
 * `count_words` (NLTK `RegexpTokenizer(r"\w+")`, Unicode words) and `count_sentences` (Punkt).
 */
import { countSentences } from "./punkt.ts";
import { PY_SPACE, PY_WORD, pyStrip } from "./py-str.ts";

export { countSentences };

const WORDS_RE = new RegExp(`[${PY_WORD}]+`, "gu");
const S = `[${PY_SPACE}]`;
const STARTERS = `(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He${S}|She${S}|It${S}|They${S}|Their${S}|Our${S}|We${S}|But${S}|However${S}|That${S}|This${S}|Wherever)`;

const RULES: [RegExp, string | ((m: string) => string)][] = [
  [/(Mr|St|Mrs|Ms|Dr)[.]/g, "$1<prd>"],
  [/[.](com|net|org|io|gov|edu|me)/g, "<prd>$1"],
  [/([0-9])[.]([0-9])/g, "$1<prd>$2"],
  [/\.{2,}/g, (m) => "<prd>".repeat(m.length) + "<stop>"],
];
const RULES_AFTER_PHD: [RegExp, string][] = [
  [new RegExp(`${S}([A-Za-z])[.] `, "gu"), " $1<prd> "],
  [new RegExp(`([A-Z][.][A-Z][.](?:[A-Z][.])?) ${STARTERS}`, "gu"), "$1<stop> $2"],
  [/([A-Za-z])[.]([A-Za-z])[.]([A-Za-z])[.]/g, "$1<prd>$2<prd>$3<prd>"],
  [/([A-Za-z])[.]([A-Za-z])[.]/g, "$1<prd>$2<prd>"],
  [new RegExp(` (Inc|Ltd|Jr|Sr|Co)[.] ${STARTERS}`, "gu"), " $1<stop> $2"],
  [/ (Inc|Ltd|Jr|Sr|Co)[.]/g, " $1<prd>"],
  [/ ([A-Za-z])[.]/g, " $1<prd>"],
];

/** Upstream's rule-based `split_into_sentences` (used by first/last-word-of-sentence and a few others). */
export function splitIntoSentences(input: string): string[] {
  let text = ` ${input}  `.replaceAll("\n", " ");
  for (const [re, rep] of RULES) text = typeof rep === "string" ? text.replace(re, rep) : text.replace(re, rep);
  if (text.includes("Ph.D")) text = text.replaceAll("Ph.D.", "Ph<prd>D<prd>");
  for (const [re, rep] of RULES_AFTER_PHD) text = text.replace(re, rep);
  if (text.includes("”")) text = text.replaceAll(".”", "”.");
  if (text.includes('"')) text = text.replaceAll('."', '".');
  if (text.includes("!")) text = text.replaceAll('!"', '"!');
  if (text.includes("?")) text = text.replaceAll('?"', '"?');
  text = text.replaceAll(".", ".<stop>").replaceAll("?", "?<stop>").replaceAll("!", "!<stop>").replaceAll("<prd>", ".");
  const sentences = text.split("<stop>").map(pyStrip);
  if (sentences.length > 0 && !sentences.at(-1)) sentences.pop();
  return sentences;
}

/** Upstream's `count_words`: the number of Unicode `\w+` runs. */
export function countWords(text: string): number {
  let n = 0;
  WORDS_RE.lastIndex = 0;
  while (WORDS_RE.exec(text)) n++;
  return n;
}
