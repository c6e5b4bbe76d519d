/** `\boxed{…}` and `\text{…}` handling shared by the multiple-choice grading modes. */
import { pyRegex } from "../../util/py-regex.ts";

const TEXT_WRAP = pyRegex("\\\\text\\{\\s*(.*?)\\s*\\}", { dotAll: true });

/**
 * Everything inside the LAST `\boxed{`, counting braces so `\boxed{\text{E}}` yields `\text{E}`;
 * undefined when there is no `\boxed{` or it never closes. The last box wins because a chain of
 * thought may box discarded candidates first.
 */
export function lastBoxedInner(text: string): string | undefined {
  const marker = "\\boxed{";
  const start = text.lastIndexOf(marker);
  if (start < 0) return undefined;
  let depth = 1;
  for (let i = start + marker.length; i < text.length; i++) {
    const ch = text[i];
    if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return text.slice(start + marker.length, i);
  }
  return undefined;
}

/** Peel successive whole-string `\text{…}` wrappers (`\text{\text{E}}` → `E`). */
export function stripTextWrappers(s: string): string {
  for (let m = TEXT_WRAP.fullmatch(s); m; m = TEXT_WRAP.fullmatch(s)) s = m[1] ?? "";
  return s;
}
