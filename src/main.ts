#!/usr/bin/env bun
/**
 * gym's entry point: classify the program name (gym, or a deprecated ng_* alias), route argv,
 * print every error through one formatter, and exit with 2 for usage/config errors, 1 otherwise.
 */
import { enableOffline } from "./env.ts";
import { formatError, exitCodeOf } from "./errors.ts";
import { classifyProgram, deprecationLine } from "./cli/legacy.ts";
import { ranCommand, route } from "./cli/root.ts";
import { setGymArgs } from "./runtime/process/gym-args.ts";

/** Run the CLI for a program name and argv; returns the exit code. */
export async function main(programName: string, argv: string[]): Promise<number> {
  // `--offline` anywhere is global: it switches offline mode on for this process and its children.
  if (argv.includes("--offline")) {
    enableOffline();
    argv = argv.filter((a) => a !== "--offline");
  }
  const verbose = argv.includes("-v") || argv.includes("--verbose");
  const inv = classifyProgram(programName);
  try {
    if (inv.kind === "unknown-legacy") {
      process.stderr.write(`⚠  \`${inv.alias}\` has no known \`gym\` equivalent. Run \`gym --help\` to see available commands.\n`);
      return 1;
    }
    if (inv.kind === "reinstall") {
      process.stderr.write(`⚠  \`${inv.alias}\` is deprecated: gym is one binary and has nothing to reinstall; replace the file to upgrade.\n`);
      return 0;
    }
    if (inv.kind === "legacy") {
      process.stderr.write(`${deprecationLine(inv.alias, inv.tokens)}\n`);
      const tokens = [...inv.tokens, ...argv];
      setGymArgs(tokens);
      const code = await route(tokens);
      // `ng_help` prints help and exits 0 (spec §2.6).
      return inv.tokens[0] === "--help" ? 0 : code;
    }
    setGymArgs(argv);
    return await route(argv);
  } catch (err) {
    process.stderr.write(`${formatError(err, verbose)}\n`);
    return exitCodeOf(err);
  }
}

// In the compiled binary argv[1] is the embedded entry; the invoked name is argv0 (symlink name).
const programName = process.argv0 && !/(^|\/)bun$/.test(process.argv0) ? process.argv0 : (process.argv[1] ?? "gym");
/**
 * Let piped stdout drain before exiting: `process.exit` right after a large `process.stdout.write`
 * cuts the output at the pipe buffer (64–128 KiB). Bounded, so a reader that never reads cannot
 * keep gym alive.
 */
async function drainStdout(): Promise<void> {
  await Promise.race([new Promise<void>((resolve) => process.stdout.end(() => resolve())), Bun.sleep(5000)]);
}

if (import.meta.main) {
  const code = await main(programName, process.argv.slice(2));
  // Help and --version write with Bun.write and wait; only a command may have queued stdout.
  if (ranCommand()) await drainStdout();
  process.exit(code);
}
