/**
 * The one logger. Everything goes to stderr: stdout carries data (configs, scripts, JSON).
 * Subsystems take a tagged child (`log.withTag("runtime")`).
 */
import type { ConsolaInstance, ConsolaReporter, FormatOptions, LogObject } from "consola";
import { maskUrlSecrets } from "./util/url-secrets.ts";

/** The parts of consola's fancy reporter that the plain-line fast path reuses. */
interface FancyReporterLike extends ConsolaReporter {
  formatType(logObj: LogObject, isBadge: boolean, opts: FormatOptions): string;
  formatLogObj(logObj: LogObject, opts: FormatOptions): string;
}

/** consola's `characterFormat` with colours off: `` `code` `` loses its backticks, ` _word_ ` its underscores. */
function plainCharacterFormat(text: string): string {
  return text.replace(/`([^`]+)`/gm, (_, m: string) => m).replace(/\s+_([^_]+)_\s+/gm, (_, m: string) => ` ${m} `);
}

/**
 * Give consola's fancy reporter a fast path for the common line: one string argument, colours
 * off, no date, and a stream narrower than 80 columns (a pipe or a file). There the fancy layout
 * never uses the measured width, yet measuring it (Intl.Segmenter plus Unicode-property regexes
 * compiled on first use) and `util.formatWithOptions` cost a cold process ~4 ms for the first
 * warning. The output is the same string; everything else goes to consola's own formatter.
 */
export function withPlainLineFastPath(reporter: ConsolaReporter): void {
  const fancy = reporter as Partial<FancyReporterLike>;
  if (typeof fancy.formatType !== "function" || typeof fancy.formatLogObj !== "function") return; // not the fancy reporter
  const formatType = fancy.formatType.bind(fancy);
  const full = fancy.formatLogObj.bind(fancy);
  fancy.formatLogObj = (logObj: LogObject, opts: FormatOptions): string => {
    const only = logObj.args?.length === 1 ? logObj.args[0] : undefined;
    if (typeof only !== "string" || logObj.type === "box" || logObj.type === "trace" || opts.date || (opts.columns ?? 0) >= 80) return full(logObj, opts);
    const isBadge = Boolean(logObj.badge ?? logObj.level < 2);
    const type = formatType(logObj, isBadge, opts);
    if (type.includes("\u001b")) return full(logObj, opts); // colours on: let consola paint
    const [message, ...additional] = only.split("\n");
    const left = [type, plainCharacterFormat(message!)].filter(Boolean).join(" ");
    const right = logObj.tag ?? "";
    let line = (right ? `[${right}] ` : "") + left;
    line += plainCharacterFormat(additional.length > 0 ? `\n${additional.join("\n")}` : "");
    return isBadge ? `\n${line}\n` : line;
  };
}

let instance: ConsolaInstance | undefined;
// The level set before the first message; applied when the logger is created.
let pendingLevel = 3;

/** The real logger, created on first use. */
function realLog(): ConsolaInstance {
  if (!instance) {
    // `require` (consola's CommonJS build) rather than a static import: in the bundled binary a
    // static import would load node:tty, node:util's inspector and the stderr stream at startup,
    // ~4 ms of every command, including the many that never log (`--version`, `--help`).
    const { createConsola } = require("consola") as typeof import("consola");
    instance = createConsola({ level: pendingLevel, stdout: process.stderr, stderr: process.stderr, formatOptions: { date: false } });
    for (const reporter of instance.options.reporters) withPlainLineFastPath(reporter);
  }
  return instance;
}

// consola's log types and instance methods, as forwarded by the stand-in below.
const LOG_TYPES = ["silent", "fatal", "error", "warn", "log", "info", "success", "fail", "ready", "start", "box", "debug", "trace", "verbose"] as const;
const METHODS = [
  "create", "withDefaults", "withTag", "addReporter", "removeReporter", "setReporters", "wrapAll", "restoreAll",
  "wrapConsole", "restoreConsole", "wrapStd", "restoreStd", "pauseLogs", "resumeLogs", "mockTypes", "prompt",
] as const;

/** A plain object that forwards every consola method to the real logger, created on first use. */
function standIn(): ConsolaInstance {
  type Fn = (...args: unknown[]) => unknown;
  const call = (name: string, raw = false) => (...rawArgs: unknown[]): unknown => {
    const real = realLog();
    // D39: a URL with credentials in a message (a model base_url, a failing request) is masked on the way out.
    const args = rawArgs.map((a) => (typeof a === "string" ? maskUrlSecrets(a) : a));
    const target = (real as unknown as Record<string, Fn & { raw: Fn }>)[name]!;
    return raw ? Reflect.apply(target.raw, target, args) : Reflect.apply(target, real, args);
  };
  // Own, writable function properties: a test's `spyOn(log, "warn")` replaces them as before.
  const out: Record<string, unknown> = {};
  for (const type of LOG_TYPES) out[type] = Object.assign(call(type), { raw: call(type, true) });
  for (const method of METHODS) out[method] = call(method);
  Object.defineProperty(out, "level", {
    enumerable: true,
    get: () => (instance ? instance.level : pendingLevel),
    set: (value: number) => {
      if (instance) instance.level = value;
      else pendingLevel = value;
    },
  });
  Object.defineProperty(out, "options", { enumerable: true, get: () => realLog().options });
  return out as unknown as ConsolaInstance;
}

/**
 * The root logger (stderr only; level 3 = info, 4 = debug). It stands in for a consola instance
 * that is created on the first message, so commands that never log do not pay for consola;
 * setting `level` before that is remembered.
 */
export const log: ConsolaInstance = standIn();

/** Turn debug logging on or off for this process (`-v`). */
export function setVerbose(on: boolean): void {
  log.level = on ? 4 : 3;
}

/** Silence everything but errors (tests, `--json` output paths). */
export function setQuiet(): void {
  log.level = 1;
}
