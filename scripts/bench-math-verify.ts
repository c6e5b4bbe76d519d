/**
 * Math verification speed: verdicts per CPU-second over a mixed corpus (integers, fractions, decimals,
 * LaTeX expressions, sets, tuples, intervals, relations, matrices; short answers and multi-KB solutions),
 * plus p50/p99/max latency per verdict. Prints figures; asserts nothing.
 * Baselines (issue 13): upstream forks a Python process per check (~12 verdicts/CPU-s) and a warm
 * math-verify process manages ~250/CPU-s on the median case; the target is ≥ 1,000/CPU-s per core.
 *
 *   bun scripts/bench-math-verify.ts [rounds=20]
 */
import { libraryVerify } from "../src/verify/math/math-metric.ts";

const rounds = Number(process.argv[2] ?? 20);
const prose = (n: number) => "We compute the sum step by step, checking each term carefully. ".repeat(n);

// [expected, generated]
const ANSWERS: [string, string][] = [
  ["18", "so she makes 18 dollars. \\boxed{18}"],
  ["10750", "The total is 10,750. Final answer: 10750"],
  ["204", "The answer is \\boxed{204}."],
  ["\\frac{14}{3}", "Thus $x = \\boxed{\\dfrac{14}{3}}$."],
  ["\\frac{1}{2}", "The probability is 0.5"],
  ["0.25", "So the answer is $\\frac{1}{4}$"],
  ["3\\sqrt{13}", "Hence the distance is $\\boxed{3\\sqrt{13}}$"],
  ["\\frac{\\sqrt{3}}{2}", "We get $\\boxed{\\frac{\\sqrt3}{2}}$"],
  ["2\\pi", "The period is \\boxed{2\\pi}"],
  ["x^2+2x+1", "Expanding, \\boxed{(x+1)^2}"],
  ["\\{1, 2, 3\\}", "The solutions are $\\boxed{3, 1, 2}$"],
  ["(1, -2)", "The point is $\\boxed{(1,-2)}$"],
  ["[2, 5)", "The solution set is $x \\in \\boxed{[2, 5)}$"],
  ["(-\\infty, 3]", "So $\\boxed{(-\\infty, 3]}$"],
  ["x \\le 3", "Therefore $\\boxed{x \\leq 3}$"],
  ["\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", "$\\boxed{\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}}$"],
  ["5", "The answer is \\boxed{6}"],
  ["\\frac{2}{3}", "so the final answer is $\\frac{3}{2}$"],
  ["12\\%", "The rate is 12%"],
  ["-3", "After simplifying we obtain $-3$."],
];

const corpus: [string, string][] = [];
for (const [g, p] of ANSWERS) {
  corpus.push([g, p]);
  corpus.push([g, `${prose(30)} ${p}`]);
  corpus.push([g, `${prose(150)} Let $a = 3$ and $b = 4$, so $c = 5$. ${prose(50)} ${p}`]);
}

// Warm-up (JIT), then measured rounds.
for (const [g, p] of corpus) libraryVerify(g, p);
const lat: number[] = [];
let correct = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let r = 0; r < rounds; r++) {
  for (const [g, p] of corpus) {
    const s = performance.now();
    correct += libraryVerify(g, p).reward;
    lat.push(performance.now() - s);
  }
}
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
lat.sort((a, b) => a - b);
const pct = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]!;
const perCpu = lat.length / cpuS;
console.log(`verdicts: ${lat.length} (${corpus.length} pairs × ${rounds} rounds; ${correct} rewarded)`);
console.log(`cpu: ${cpuS.toFixed(2)} s   wall: ${wall.toFixed(2)} s`);
console.log(`verdicts per CPU-second: ${perCpu.toFixed(0)}  (target 1000: ${(perCpu / 1000).toFixed(1)}×; upstream fork-per-check ~12: ${(perCpu / 12).toFixed(0)}×; warm Python ~250: ${(perCpu / 250).toFixed(1)}×)`);
console.log(`latency ms: p50 ${pct(0.5).toFixed(3)}  p99 ${pct(0.99).toFixed(3)}  max ${lat[lat.length - 1]!.toFixed(3)}`);
