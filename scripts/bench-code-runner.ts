/**
 * CodeRunner figures (prints, never asserts): test executions per second on this machine for a trivial
 * stdio program and a call-based one (10 tests each, runs in parallel up to the core count), and the
 * runner's cost per execution (a fork of the warm zygote) against a bare `python3 -c pass` spawn measured in
 * the same script.
 * Usage: bun scripts/bench-code-runner.ts [runs=40]
 */
import { availableParallelism } from "node:os";
import { readEnv } from "../src/env.ts";
import { pythonHost } from "../src/verify/code/python.ts";
import { CodeRunner, type CodeJob } from "../src/verify/code/runner.ts";

const runs = Number(process.argv[2] ?? 40);
const cores = availableParallelism();
const host = await pythonHost(readEnv().path);
console.log(`python: ${host.python}; isolation: ${host.isolated ? "unshare (user+net+pid namespaces)" : "process group only"}; cores: ${cores}`);

async function timeSerial(n: number, once: () => Promise<unknown>): Promise<number> {
  await once();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once();
  return (performance.now() - t0) / n;
}

const bare = () => Bun.spawn([host.python, "-c", "pass"], { stdout: "ignore", stderr: "ignore" }).exited;
const bareIsolated = () => Bun.spawn([...host.wrapper, host.python, "-I", "-c", "pass"], { stdout: "ignore", stderr: "ignore" }).exited;
const runner = new CodeRunner({ maxConcurrent: cores }, readEnv().path);
const tests = 10;
const stdioJob: CodeJob = { code: "n = int(input())\nprint(n * 2)", inputs: Array.from({ length: tests }, (_, i) => `${i}\n`), outputs: Array.from({ length: tests }, (_, i) => `${i * 2}`), fnName: null, timeoutSecs: 5 };
const callJob: CodeJob = { code: "class Solution:\n    def twice(self, n):\n        return n * 2", inputs: Array.from({ length: tests }, (_, i) => `${i}`), outputs: Array.from({ length: tests }, (_, i) => `${i * 2}`), fnName: "twice", timeoutSecs: 5 };
const oneTest: CodeJob = { ...stdioJob, inputs: ["1\n"], outputs: ["2"] };

// Alternate the measurements so machine noise hits both sides alike.
const rounds: { bare: number; iso: number; run: number }[] = [];
for (let r = 0; r < 3; r++) rounds.push({ bare: await timeSerial(runs / 4, bare), iso: await timeSerial(runs / 4, bareIsolated), run: await timeSerial(runs / 4, () => runner.run(oneTest)) });
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const b = med(rounds.map((x) => x.bare)), i = med(rounds.map((x) => x.iso)), r1 = med(rounds.map((x) => x.run));
console.log(`bare python3 -c pass:            ${b.toFixed(1)} ms`);
console.log(`same, under the isolation wrapper: ${i.toFixed(1)} ms`);
console.log(`runner, one stdio test:          ${r1.toFixed(1)} ms  → ${(r1 / b).toFixed(2)}× bare (target ≤ 1.5×)`);

for (const [name, job] of [["stdio", stdioJob], ["call-based", callJob]] as const) {
  const t0 = performance.now();
  const res = await Promise.all(Array.from({ length: runs }, () => runner.run(job)));
  const s = (performance.now() - t0) / 1000;
  const ok = res.every((x) => x.result.length === tests && x.result.every((v) => v === true));
  console.log(`${name.padEnd(10)}: ${runs} runs × ${tests} tests in ${s.toFixed(2)} s → ${((runs * tests) / s).toFixed(0)} test executions/s, ${(runs / s).toFixed(1)} programs/s${ok ? "" : "  (SOME FAILED)"}`);
}
runner.close();
