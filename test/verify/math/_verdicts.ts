/** Prints the verdict vector over every Math-Verify case plus symbolic pairs (run as a child process). */
import { CASE_FILES, loadCases, runCase } from "./_cases.ts";
import { parse, verify } from "../../../src/verify/math/verify.ts";

/** Symbolic pairs that exercise the seeded random-point comparison and the budget. */
export const SYMBOLIC: [string, string][] = [
  ["$(x+1)^2$", "$x^2+2x+1$"],
  ["$\\sin^2 x + \\cos^2 x$", "$1$"],
  ["$\\frac{x^2-1}{x-1}$", "$x+1$"],
  ["$e^{i\\pi}$", "$-1$"],
  ["$\\sqrt{-4}$", "$2 \\cdot i$"],
  ["$\\log(xy)$", "$\\log x + \\log y$"],
  ["$10^{10^{10}}$", "$10^{10^{10}}+1$"],
  ["$2^{2^{2^{2^{2}}}}$", "$2^{65536}$"],
  ["$1000!$", "$999! \\cdot 1000$"],
];

/** All verdicts, in a fixed order. */
export async function allVerdicts(): Promise<number[]> {
  const out: number[] = [];
  for (const f of CASE_FILES) for (const c of await loadCases(f)) out.push(runCase(c));
  for (const [g, p] of SYMBOLIC) out.push(verify(parse(g), parse(p)) ? 1 : 0);
  return out;
}

if (import.meta.main) process.stdout.write(JSON.stringify(await allVerdicts()));
