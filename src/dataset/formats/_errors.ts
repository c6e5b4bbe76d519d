/** The error every reader throws for a malformed source file: names the file (and line) and says what to do. */
import { RuntimeError } from "../../errors.ts";

/** A source file that cannot be read as its format; `where` is `file` or `file:line`. */
export class SourceFormatError extends RuntimeError {
  constructor(where: string, what: string, hint = "the downloaded file is damaged or not what the benchmark expects: delete it and prepare again") {
    super(`${where}: ${what}`, { code: "E_SOURCE_FORMAT", hint });
    this.name = "SourceFormatError";
  }
}
