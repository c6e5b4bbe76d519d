/** Temp-dir helper for tests: `await using dir = await tempDir()` removes it afterwards. */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp directory that removes itself when disposed. */
export interface TempDir extends AsyncDisposable {
  path: string;
}

/** Create a fresh temp directory. */
export async function tempDir(prefix = "gym-test-"): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/** Path of the gym entry point, for spawning the CLI from source in tests. */
export const GYM_MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

/** Run the gym CLI from source as a child process and capture its output. */
export async function runGym(args: string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  const proc = Bun.spawn([process.execPath, GYM_MAIN, ...args], { cwd: opts.cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A TCP port that was free a moment ago on 127.0.0.1 (bind 0, read, release). */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port;
  s.stop(true);
  if (port === undefined) throw new Error("could not allocate a port");
  return port;
}

/** The rows of a JSONL file (blank lines skipped); `[]` when the file does not exist. */
export function readJsonl(path: string): Record<string, any>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}
