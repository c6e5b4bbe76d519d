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
