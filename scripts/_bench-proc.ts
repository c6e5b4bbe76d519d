/** Process helpers shared by the bench scripts: spawn-and-read-address, free ports, /proc readings. */
import { readFileSync } from "node:fs";

/** Spawn `argv` and wait for the first line it prints on stdout (a helper's port or address). */
export async function spawnLine(
  argv: string[],
  opts: { env?: Record<string, string>; stderr?: "inherit" | "ignore" } = {},
): Promise<{ proc: ReturnType<typeof Bun.spawn>; line: string }> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: opts.stderr ?? "inherit", env: { ...process.env, ...opts.env } as Record<string, string> });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${argv.join(" ")} exited before printing its address`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, line: text.split("\n")[0]!.trim() };
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const p = s.port!;
  s.stop(true);
  return p;
}

/** Resident set size of a process in MB (0 when it is gone). */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used so far (0 when it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    // utime + stime: fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in 10 ms ticks.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** Every descendant pid of `pid` (children first, then theirs). */
export function descendants(pid: number): number[] {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return kids.flatMap((k) => [k, ...descendants(k)]);
  } catch {
    return [];
  }
}

/** A short label for a bench process: a gym server's instance name, a `--role`, or its argv. */
export function processLabel(pid: number): string {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").find((e) => e.startsWith("NEMO_GYM_CONFIG_PATH="));
    if (env) return `gym ${env.slice("NEMO_GYM_CONFIG_PATH=".length)}`;
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    const role = argv.indexOf("--role");
    if (role >= 0) return `bare ${argv[role + 1]}`;
    const serve = argv.indexOf("serve");
    if (argv.some((a) => a.endsWith("replica.py")) && serve >= 0) return `fastapi ${argv[serve + 1]}`;
    return argv.slice(1, 5).join(" ").replace(/^.*\/(src|scripts)\//, "");
  } catch {
    return "?";
  }
}

/** The 1-, 5- and 15-minute load averages as printed by uptime. */
export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

/** The median of a list of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/**
 * With the kernel's autogroup scheduling (one group per session), `nice` ranks a process only
 * against its own session: on a shared machine a bench's processes then get a fair share per
 * *session*, whatever their nice value. Re-run this script in a session of its own whose group
 * is niced to `nice` (root only), so `nice -n -15` means what it says. Returns true in the
 * parent after the child finished (the caller exits with `process.exitCode`).
 */
export async function inOwnNicedGroup(nice = -15): Promise<boolean> {
  const group = "/proc/self/autogroup";
  if (process.env.GYM_BENCH_GROUP === "1") {
    try {
      require("node:fs").writeFileSync(group, String(nice));
    } catch {
      // not root, or no autogroup: run as we are
    }
    return false;
  }
  let enabled = false;
  try {
    enabled = readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1" && Bun.which("setsid") !== null;
  } catch {
    enabled = false;
  }
  if (!enabled) return false;
  const p = Bun.spawn(["setsid", "-w", process.execPath, ...process.argv.slice(1)], { env: { ...process.env, GYM_BENCH_GROUP: "1" }, stdio: ["inherit", "inherit", "inherit"] });
  process.exitCode = await p.exited;
  return true;
}

/** This process's scheduling group and its nice value, for the figures' header. */
export function autogroupLine(): string {
  try {
    return readFileSync("/proc/self/autogroup", "utf8").trim();
  } catch {
    return "no autogroup";
  }
}
