/** Python's `round(x, ndigits)` for floats: correctly rounded from the double's exact value, ties to even. */

/** `round(x, ndigits)` (0 ≤ ndigits ≤ 20, |x| < 1e21; larger values are returned as they are, as Python's are whole already). */
export function pyRound(x: number, ndigits = 0): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return x;
  // A double lies exactly halfway between two ndigits-decimals only when x·2^(ndigits+1) is an odd
  // integer (the tie's denominator 2·10^n must reduce to a power of two); the product is exact.
  const scaled = x * 2 ** (ndigits + 1);
  if (Number.isInteger(scaled) && Math.abs(scaled) % 2 === 1) {
    // toFixed breaks ties away from zero; Python picks the even neighbour.
    const step = 10 ** -ndigits;
    const up = Number.parseFloat(x.toFixed(ndigits));
    const down = Number.parseFloat((x - Math.sign(x) * step / 2).toFixed(ndigits));
    const lastDigit = (v: number) => Math.round(Math.abs(v) * 10 ** ndigits) % 2;
    return lastDigit(up) === 0 ? up : down;
  }
  return Number.parseFloat(x.toFixed(ndigits));
}
