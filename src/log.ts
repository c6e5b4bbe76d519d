/**
 * The one logger. Everything goes to stderr: stdout carries data (configs, scripts, JSON).
 * Subsystems take a tagged child (`log.withTag("runtime")`).
 */
import { createConsola, type ConsolaInstance } from "consola";

/** The root logger (stderr only; level 3 = info, 4 = debug). */
export const log: ConsolaInstance = createConsola({
  level: 3,
  stdout: process.stderr,
  stderr: process.stderr,
  formatOptions: { date: false },
});

/** Turn debug logging on or off for this process (`-v`). */
export function setVerbose(on: boolean): void {
  log.level = on ? 4 : 3;
}

/** Silence everything but errors (tests, `--json` output paths). */
export function setQuiet(): void {
  log.level = 1;
}
