/**
 * bench-help: CPU time (user + system, from the kernel's rusage of each child) of `gym --help`
 * and `gym --version` against a hello-world binary compiled with the same `bun build --compile`
 * flags (build.ts compileOptions), measured side by side in interleaved runs. Target: ≤ 2× the floor.
 *
 *   bun scripts/bench-help.ts [runs=25] [path/to/gym]     (default dist/gym, built first)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileOptions } from "../build.ts";
import { autogroupLine, inOwnNicedGroup, loadAverage, median } from "./_bench-proc.ts";

const ROOT = resolve(import.meta.dir, "..");

/** CPU ms of one run of argv (stdout/stderr discarded). */
function cpuMs(argv: string[]): number {
  const r = Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore" });
  const u = r.resourceUsage!;
  return Number(u.cpuTime.user + u.cpuTime.system) / 1000;
}

/** Build the hello-world floor with gym's compile flags into a temp dir; returns its path and the dir. */
async function buildHello(): Promise<{ bin: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "gym-bench-help-"));
  writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');
  const bin = join(dir, "hello");
  const r = await Bun.build(compileOptions([join(dir, "hello.ts")], bin));
  if (!r.success) throw new Error(`hello-world build failed: ${r.logs.join("\n")}`);
  return { bin, dir };
}

/** Median CPU ms of the floor, `gym --help` and `gym --version`, measured interleaved; lines to print. */
export async function helpCpu(gym: string, runs = 25): Promise<{ lines: string[]; helpRatio: number; versionRatio: number }> {
  const { bin: hello, dir } = await buildHello();
  try {
    const cmds: Record<string, string[]> = { hello: [hello], help: [gym, "--help"], version: [gym, "--version"], "eval run --help": [gym, "eval", "run", "--help"] };
    const xs: Record<string, number[]> = Object.fromEntries(Object.keys(cmds).map((k) => [k, []]));
    for (const argv of Object.values(cmds)) cpuMs(argv); // page the binaries in once
    for (let i = 0; i < runs; i++) for (const [k, argv] of Object.entries(cmds)) xs[k]!.push(cpuMs(argv));
    const m = Object.fromEntries(Object.entries(xs).map(([k, v]) => [k, median(v)])) as Record<string, number>;
    const helpRatio = m.help! / m.hello!;
    const versionRatio = m.version! / m.hello!;
    const lines = [
      `CPU per start (median of ${runs} interleaved runs, load ${loadAverage()}):`,
      `  hello-world (same compile flags) ${m.hello!.toFixed(1).padStart(6)} ms`,
      `  gym --help                       ${m.help!.toFixed(1).padStart(6)} ms   ${helpRatio.toFixed(2)}× the floor (target ≤ 2×)`,
      `  gym --version                    ${m.version!.toFixed(1).padStart(6)} ms   ${versionRatio.toFixed(2)}× the floor (target ≤ 2×)`,
      `  gym eval run --help              ${m["eval run --help"]!.toFixed(1).padStart(6)} ms   ${(m["eval run --help"]! / m.hello!).toFixed(2)}× (for reference)`,
    ];
    return { lines, helpRatio, versionRatio };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Build dist/gym with build.ts (the binary the benches time). */
export function buildGym(): string {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "build.ts")], { cwd: ROOT, stdout: "ignore", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error("build.ts failed");
  return join(ROOT, "dist", "gym");
}

if (import.meta.main && !(await inOwnNicedGroup())) {
  console.log(`scheduling group ${autogroupLine()}`);
  const runs = Number(process.argv[2] ?? 25);
  const gym = process.argv[3] ?? buildGym();
  console.log((await helpCpu(gym, runs)).lines.join("\n"));
}
