/**
 * Python difflib's `SequenceMatcher(None, a, b).ratio()` over code points, autojunk included: when b
 * has 200+ elements, every element occurring more than 1 % + 1 times is "popular" and seeds no match
 * (matches still extend over it), exactly as upstream scores long answers.
 */

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/** b's element → ascending positions, popular elements dropped (difflib's b2j with autojunk). */
function indexB(b: number[], autojunk = true): Map<number, number[]> {
  const b2j = new Map<number, number[]>();
  b.forEach((x, j) => {
    const list = b2j.get(x);
    if (list) list.push(j);
    else b2j.set(x, [j]);
  });
  if (autojunk && b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [x, list] of b2j) if (list.length > limit) b2j.delete(x);
  }
  return b2j;
}

function longest(a: number[], b: number[], b2j: Map<number, number[]>, alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
  let besti = alo, bestj = blo, bestsize = 0;
  let j2len = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of b2j.get(a[i]!) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) {
        besti = i - k + 1;
        bestj = j - k + 1;
        bestsize = k;
      }
    }
    j2len = next;
  }
  // Popular elements are not junk: a match grows over equal neighbours on both sides.
  while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
    besti--;
    bestj--;
    bestsize++;
  }
  while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
  return [besti, bestj, bestsize];
}

/** `SequenceMatcher(None, a, b, autojunk=…).find_longest_match(0, len(a), 0, len(b)).size` (code points). */
export function longestMatchSize(as: string, bs: string, autojunk = true): number {
  const a = codePoints(as), b = codePoints(bs);
  return longest(a, b, indexB(b, autojunk), 0, a.length, 0, b.length)[2];
}

/** `SequenceMatcher(None, a, b, autojunk=…).ratio()`: 2·M / (len(a) + len(b)), 1.0 for two empty strings. */
export function sequenceRatio(as: string, bs: string, autojunk = true): number {
  const a = codePoints(as), b = codePoints(bs);
  const total = a.length + b.length;
  if (total === 0) return 1.0;
  const b2j = indexB(b, autojunk);
  let matched = 0;
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const [i, j, k] = longest(a, b, b2j, alo, ahi, blo, bhi);
    if (k === 0) continue;
    matched += k;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  return (2 * matched) / total;
}
