/**
 * The `[y/N]` confirmation before a dataset is deleted from GitLab (components §4.3). Scripts
 * confirm with `--yes` / `+yes=true`; without it, a stdin that is not a terminal is refused up
 * front (before anything is uploaded or deleted) rather than read as "no" or hung on.
 */
import { UsageError } from "../errors.ts";

/** Where the question is asked (stdin/stderr by default; tests pass their own streams). */
export interface ConfirmIO {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

/** The process's terminal: questions go to stderr so stdout stays data. */
export function processIO(): ConfirmIO {
  return { input: process.stdin, output: process.stderr };
}

/** Refuse a deletion that can be neither confirmed by the flag nor asked about. */
export function assertCanConfirm(yes: boolean, io: ConfirmIO, what: string): void {
  if (yes || io.input.isTTY === true) return;
  throw new UsageError(`refusing to delete ${what} without confirmation: stdin is not a terminal, so gym cannot ask [y/N]`, {
    hint: "pass --yes (or +yes=true) to confirm the deletion in scripts",
  });
}

/** Ask a yes/no question; only `y`/`yes` (any case) mean yes, as upstream. */
export async function confirm(question: string, io: ConfirmIO): Promise<boolean> {
  // Required here, not imported: a static node:readline import would load on every CLI start.
  const { createInterface } = require("node:readline") as typeof import("node:readline");
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      let done = false;
      const finish = (a: string) => {
        if (done) return;
        done = true;
        resolve(a);
      };
      rl.once("close", () => finish(""));
      rl.question(question, finish);
    });
    return ["y", "yes"].includes(answer.trim().toLowerCase());
  } finally {
    rl.close();
  }
}
