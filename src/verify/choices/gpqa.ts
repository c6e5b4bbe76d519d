/** GPQA-Diamond's own extraction (upstream `gpqa_diamond`): last `\boxed{}` letter, else the last `Answer: X`. */
import { pyRegex } from "../../util/py-regex.ts";
import { pyLen, pyStrip } from "../../util/py-str.ts";

const BOXED = pyRegex("\\\\boxed\\{([^}]*)\\}", { dotAll: true });
const LETTER = pyRegex("\\b([A-Z])\\b", { dotAll: true });
const ANSWER = pyRegex("(?i)[\\*\\_]{0,2}Answer[\\*\\_]{0,2}\\s*:[\\s\\*\\_]{0,2}\\s*([A-Z])(?![a-zA-Z0-9])");

/** Python's `str.isupper()` for one character: cased and upper. */
function isUpperChar(s: string): boolean {
  return s.toUpperCase() === s && s.toLowerCase() !== s;
}

/** The GPQA answer letter of a response text, or undefined. */
export function gpqaLetter(text: string): string | undefined {
  const boxes = BOXED.findall(text) as string[];
  if (boxes.length > 0) {
    const inner = pyStrip(boxes[boxes.length - 1]!);
    if (pyLen(inner) === 1 && isUpperChar(inner)) return inner;
    const letters = LETTER.findall(inner) as string[];
    if (letters.length > 0) return pyStrip(letters[letters.length - 1]!);
  }
  const answers = ANSWER.findall(text) as string[];
  return answers.length > 0 ? pyStrip(answers[answers.length - 1]!).toUpperCase() : undefined;
}
