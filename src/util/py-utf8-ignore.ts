/**
 * Python's `bytes.decode("utf-8", errors="ignore")`: invalid bytes are dropped rather than replaced
 * with U+FFFD (TextDecoder's only lenient mode), one maximal invalid subpart at a time, as CPython's
 * decoder reports them.
 */

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/** The byte range a second byte must fall in after `lead` (Unicode Table 3-7), and the sequence length. */
function shape(lead: number): [len: number, lo: number, hi: number] | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  return undefined;
}

/** `b.decode("utf-8", errors="ignore")`. */
export function decodeUtf8Ignore(b: Uint8Array): string {
  try {
    return strict.decode(b);
  } catch {
    // fall through: rebuild the text from its valid sequences only
  }
  const keep: number[] = [];
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      keep.push(c);
      i++;
      continue;
    }
    const s = shape(c);
    if (!s) {
      i++;
      continue;
    }
    const [len, lo, hi] = s;
    let j = i + 1;
    let ok = true;
    for (let k = 1; k < len; k++, j++) {
      const x = b[j];
      if (x === undefined || x < (k === 1 ? lo : 0x80) || x > (k === 1 ? hi : 0xbf)) {
        ok = false;
        break;
      }
    }
    if (ok) for (let k = i; k < j; k++) keep.push(b[k]!);
    i = j;
  }
  return lenient.decode(new Uint8Array(keep));
}
