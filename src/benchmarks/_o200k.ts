/**
 * tiktoken's `o200k_base` token count (js-tiktoken ships the same ranks file tiktoken downloads),
 * counting special-token text as ordinary text as `encode(text, disallowed_special=())` does.
 */

/** A counter over `o200k_base` (the ranks load on first use). */
export async function o200kCounter(): Promise<(text: string) => number> {
  const [{ Tiktoken }, { default: ranks }] = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]);
  const enc = new Tiktoken(ranks);
  return (text) => enc.encode(text, [], []).length;
}
