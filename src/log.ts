/**
 * The one logger. Everything goes to stderr: stdout carries data (configs, scripts, JSON).
 * Subsystems take a tagged child (`log.withTag("runtime")`).
 */
import { createConsola, type ConsolaInstance, type ConsolaReporter, type FormatOptions, type LogObject } from "consola";

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

/** The root logger (stderr only; level 3 = info, 4 = debug). */
export const log: ConsolaInstance = createConsola({
  level: 3,
  stdout: process.stderr,
  stderr: process.stderr,
  formatOptions: { date: false },
});
for (const reporter of log.options.reporters) withPlainLineFastPath(reporter);

/** Turn debug logging on or off for this process (`-v`). */
export function setVerbose(on: boolean): void {
  log.level = on ? 4 : 3;
}

/** Silence everything but errors (tests, `--json` output paths). */
export function setQuiet(): void {
  log.level = 1;
}
