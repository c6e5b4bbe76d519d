/**
 * gym's error types. Every error a user can cause is a GymError with a string `code`,
 * a message that says what happened and where, and a hint that says what to do.
 * Classes set `name` themselves because the minifier renames classes in the binary.
 */

import { maskUrlSecrets } from "./util/url-secrets.ts";

/** Exit code for usage and config errors (D31). */
export const EXIT_USAGE = 2;
/** Exit code for runtime failures (D31). */
export const EXIT_RUNTIME = 1;

/** Base class of every expected (non-bug) error. */
export class GymError extends Error {
  /** Machine-readable error code, e.g. `E_CONFIG`. */
  readonly code: string;
  /** What the user can do about it; printed on its own line. */
  readonly hint: string | undefined;
  /** Process exit status when this error ends the program. */
  readonly exitCode: number;

  constructor(message: string, opts: { code?: string; hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "GymError";
    this.code = opts.code ?? "E_GYM";
    this.hint = opts.hint;
    this.exitCode = opts.exitCode ?? EXIT_RUNTIME;
  }
}

/** A bad command line: unknown flag, invalid choice, missing value. Exit 2. */
export class UsageError extends GymError {
  constructor(message: string, opts: { hint?: string; code?: string } = {}) {
    super(message, { code: opts.code ?? "E_USAGE", hint: opts.hint, exitCode: EXIT_USAGE });
    this.name = "UsageError";
  }
}

/** Where in a file a config value came from (D12). */
export interface SourceLocation {
  file: string;
  line?: number;
  col?: number;
}

/** Format a location as `file:line:col` (parts omitted when unknown). */
export function formatLocation(loc: SourceLocation): string {
  if (loc.line === undefined) return loc.file;
  return loc.col === undefined ? `${loc.file}:${loc.line}` : `${loc.file}:${loc.line}:${loc.col}`;
}

/** A problem in the configuration (files, overrides, interpolation, validation). Exit 2. */
export class ConfigError extends GymError {
  /** Dotted key path the error is about, when there is one. */
  readonly key: string | undefined;
  /** Source location of the offending value, when it came from a file. */
  readonly location: SourceLocation | undefined;

  constructor(message: string, opts: { key?: string; location?: SourceLocation; hint?: string; code?: string; cause?: unknown } = {}) {
    const where = opts.location ? `${formatLocation(opts.location)}: ` : "";
    super(`${where}${message}`, { code: opts.code ?? "E_CONFIG", hint: opts.hint, exitCode: EXIT_USAGE, cause: opts.cause });
    this.name = "ConfigError";
    this.key = opts.key;
    this.location = opts.location;
  }
}

/** Several config problems reported together (e.g. every `???` at once). Exit 2. */
export class ConfigErrors extends GymError {
  /** The individual problems, in the order found. */
  readonly errors: ConfigError[];

  constructor(summary: string, errors: ConfigError[], hint?: string) {
    super(`${summary}\n${errors.map((e) => `  - ${e.message}`).join("\n")}`, { code: "E_CONFIG", hint, exitCode: EXIT_USAGE });
    this.name = "ConfigErrors";
    this.errors = errors;
  }
}

/** A failure while running (a server died, an endpoint never answered). Exit 1. */
export class RuntimeError extends GymError {
  constructor(message: string, opts: { hint?: string; code?: string; cause?: unknown } = {}) {
    super(message, { code: opts.code ?? "E_RUNTIME", hint: opts.hint, exitCode: EXIT_RUNTIME, cause: opts.cause });
    this.name = "RuntimeError";
  }
}

/** Render any thrown value as the lines gym prints on stderr; stack only when verbose. */
export function formatError(err: unknown, verbose = false): string {
  return maskUrlSecrets(formatErrorText(err, verbose));
}

function formatErrorText(err: unknown, verbose: boolean): string {
  if (err instanceof GymError) {
    const lines = [`error: ${err.message}`];
    if (err.hint) lines.push(`hint: ${err.hint}`);
    if (verbose && err.stack) lines.push(err.stack);
    return lines.join("\n");
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const lines = [`error: ${e.message}`];
  // An unexpected error is a bug in gym: show where it came from even without -v.
  if (e.stack) lines.push(verbose ? e.stack : "(this is a bug in gym; rerun with -v for the stack trace)");
  return lines.join("\n");
}

/** Exit status for any thrown value. */
export function exitCodeOf(err: unknown): number {
  return err instanceof GymError ? err.exitCode : EXIT_RUNTIME;
}
