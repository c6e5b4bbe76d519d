/**
 * Python's `html.unescape` for the entities answers and options carry: numeric references (with
 * Python's replacements for 0x80–0x9F and invalid code points) and the common named ones. Named
 * entities outside this table are left as written (Python knows all 2,231 HTML5 names).
 */

const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", deg: "°", plusmn: "±", times: "×", divide: "÷", middot: "·",
  micro: "µ", minus: "−", ndash: "–", mdash: "—", rarr: "→", larr: "←", harr: "↔", rArr: "⇒", hArr: "⇔", lArr: "⇐", hellip: "…",
  prime: "′", Prime: "″", le: "≤", ge: "≥", ne: "≠", asymp: "≈", equiv: "≡", sup2: "²", sup3: "³", sup1: "¹", frac12: "½",
  frac14: "¼", frac34: "¾", alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", zeta: "ζ", eta: "η", theta: "θ",
  iota: "ι", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", omicron: "ο", pi: "π", rho: "ρ", sigma: "σ", tau: "τ",
  upsilon: "υ", phi: "φ", chi: "χ", psi: "ψ", omega: "ω", Alpha: "Α", Beta: "Β", Gamma: "Γ", Delta: "Δ", Theta: "Θ",
  Lambda: "Λ", Pi: "Π", Sigma: "Σ", Phi: "Φ", Psi: "Ψ", Omega: "Ω", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”",
  copy: "©", reg: "®", trade: "™", sect: "§", para: "¶", laquo: "«", raquo: "»", infin: "∞", sum: "∑", prod: "∏", radic: "√",
  part: "∂", nabla: "∇", isin: "∈", cap: "∩", cup: "∪", and: "∧", or: "∨", not: "¬", Aring: "Å", angst: "Å", ohm: "Ω",
};

// Python maps these C1 references to Windows-1252 characters (html._invalid_charrefs).
const C1: Record<number, string> = {
  0x80: "€", 0x82: "‚", 0x83: "ƒ", 0x84: "„", 0x85: "…", 0x86: "†", 0x87: "‡", 0x88: "ˆ", 0x89: "‰", 0x8a: "Š", 0x8b: "‹",
  0x8c: "Œ", 0x8e: "Ž", 0x91: "‘", 0x92: "’", 0x93: "“", 0x94: "”", 0x95: "•", 0x96: "–", 0x97: "—", 0x98: "˜", 0x99: "™",
  0x9a: "š", 0x9b: "›", 0x9c: "œ", 0x9e: "ž", 0x9f: "Ÿ", 0x00: "\ufffd", 0x0d: "\r",
};

/** Decode character references as `html.unescape` does (named ones from the table above). */
export function htmlUnescape(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[A-Za-z][A-Za-z0-9]*;?)/g, (all, ref: string) => {
    if (ref[0] === "#") {
      const hex = ref[1] === "x" || ref[1] === "X";
      const cp = parseInt(ref.slice(hex ? 2 : 1).replace(";", ""), hex ? 16 : 10);
      if (cp in C1) return C1[cp]!;
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return "\ufffd";
      return String.fromCodePoint(cp);
    }
    const name = ref.endsWith(";") ? ref.slice(0, -1) : ref;
    return NAMED[name] ?? all;
  });
}
