/**
 * Did-you-mean matching with Python difflib's Ratcliff/Obershelp ratio (2*M/T), so hints
 * pick the same candidate upstream's `get_close_matches(n=1, cutoff=0.6)` would.
 */

function longestMatch(a: string, b: string, alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
  let bestI = alo;
  let bestJ = blo;
  let bestSize = 0;
  // Dynamic programming over the window; inputs are short identifiers, so O(n*m) is fine.
  let prev = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const cur = new Map<number, number>();
    for (let j = blo; j < bhi; j++) {
      if (a[i] !== b[j]) continue;
      const k = (prev.get(j - 1) ?? 0) + 1;
      cur.set(j, k);
      if (k > bestSize) {
        bestI = i - k + 1;
        bestJ = j - k + 1;
        bestSize = k;
      }
    }
    prev = cur;
  }
  return [bestI, bestJ, bestSize];
}

function matchingCharacters(a: string, b: string): number {
  let total = 0;
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const [i, j, k] = longestMatch(a, b, alo, ahi, blo, bhi);
    if (k === 0) continue;
    total += k;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  return total;
}

/** Similarity ratio in [0, 1] as Python's `SequenceMatcher(None, a, b).ratio()` (no autojunk). */
export function similarity(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(a, b)) / total;
}

/** The single closest candidate with ratio ≥ cutoff, or undefined (difflib `get_close_matches(n=1)`). */
export function closestMatch(word: string, candidates: Iterable<string>, cutoff = 0.6): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const c of candidates) {
    const score = similarity(word, c);
    if (score >= cutoff && score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}

/** `Did you mean `x`?` suffix, or an empty string when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>, cutoff = 0.6): string {
  const m = closestMatch(word, candidates, cutoff);
  return m === undefined ? "" : `Did you mean \`${m}\`?`;
}
