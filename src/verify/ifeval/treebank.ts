/**
 * NLTK's `word_tokenize` (English): Punkt sentences, then the improved Treebank rules of
 * `NLTKWordTokenizer` on each (quotes → `` and '', punctuation split off, clitics such as n't 's 'll
 * separated, can|not / gon|na split). The rules are written as Python patterns and translated once.
 */
import { punktSentences } from "./punkt.ts";
import { pyRegex, pySplit } from "./py-str.ts";

type Rule = [RegExp, string];
const rule = (py: string, rep: string, flags = ""): Rule => [new RegExp(pyRegex(py, flags).source, `${pyRegex(py, flags).flags}g`), rep];

const STARTING_QUOTES: Rule[] = [
  rule("([«“‘„]|[`]+)", " $1 "),
  rule('^"', "``"),
  rule("(``)", " $1 "),
  rule("([ \\(\\[{<])(\"|'{2})", "$1 `` "),
  rule("(?i)(')(?!re|ve|ll|m|t|s|d|n)(\\w)\\b", "$1 $2"),
];

const PUNCTUATION: Rule[] = [
  rule("([^\\.])(\\.)([\\]\\)}>\"'»”’ ]*)\\s*$", "$1 $2 $3 "),
  rule("([:,])([^\\d])", " $1 $2"),
  rule("([:,])$", " $1 "),
  rule("\\.{2,}", " $& "),
  rule("[;@#$%&]", " $& "),
  rule("([^\\.])(\\.)([\\]\\)}>\"']*)\\s*$", "$1 $2$3 "),
  rule("[?!]", " $& "),
  rule("([^'])' ", "$1 ' "),
  rule("[*]", " $& "),
];

const PARENS_BRACKETS = rule("[\\]\\[\\(\\)\\{\\}\\<\\>]", " $& ");
const DOUBLE_DASHES = rule("--", " -- ");

const ENDING_QUOTES: Rule[] = [
  rule("([»”’])", " $1 "),
  rule("''", " '' "),
  rule('"', " '' "),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
];

const CONTRACTIONS: Rule[] = [
  "(?i)\\b(can)(?#X)(not)\\b",
  "(?i)\\b(d)(?#X)('ye)\\b",
  "(?i)\\b(gim)(?#X)(me)\\b",
  "(?i)\\b(gon)(?#X)(na)\\b",
  "(?i)\\b(got)(?#X)(ta)\\b",
  "(?i)\\b(lem)(?#X)(me)\\b",
  "(?i)\\b(more)(?#X)('n)\\b",
  "(?i)\\b(wan)(?#X)(na)(?=\\s)",
  "(?i) ('t)(?#X)(is)\\b",
  "(?i) ('t)(?#X)(was)\\b",
].map((p) => rule(p, " $1 $2 "));

const apply = (text: string, rules: Rule[]) => rules.reduce((t, [re, rep]) => t.replace(re, rep), text);

/** `NLTKWordTokenizer().tokenize(sentence)`: one sentence into Treebank tokens. */
export function treebankTokens(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = ` ${text} `;
  text = apply(text, ENDING_QUOTES);
  text = apply(text, CONTRACTIONS);
  return pySplit(text);
}

/** `nltk.word_tokenize(text)`: Punkt sentences, each split by the Treebank rules. */
export function wordTokenize(text: string): string[] {
  return punktSentences(text).flatMap(treebankTokens);
}
