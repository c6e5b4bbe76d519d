/**
 * The gym tokens this process runs, recorded by main.ts. A module of its own with no imports:
 * main.ts loads it at every start, and spawn.ts (which re-exports both functions) pulls in node:fs
 * and node:path, whose loading was ~1.5 ms of a `gym --version` in the binary (issue 19).
 */

let gymArgs: string[] | undefined;

/**
 * Record the gym tokens this process is running (main.ts, after a legacy `ng_*` name was mapped
 * to `gym` tokens): a re-spawned copy must run the same gym command, and `process.argv` lacks the
 * tokens an alias stood for.
 */
export function setGymArgs(args: string[]): void {
  gymArgs = [...args];
}

/** The gym tokens of this process's command line (argv after the program name when none were recorded). */
export function gymArgsOfThisProcess(): string[] {
  return gymArgs ?? process.argv.slice(2);
}
