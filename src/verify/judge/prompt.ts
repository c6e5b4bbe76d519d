/**
 * Judge prompt templates: Python `str.format` text with named placeholders (`{question}`,
 * `{expected_answer}`, …, `{{`/`}}` escapes). Checked once when the server starts, so a
 * placeholder the server does not supply is a config error then, never a crash mid-run.
 */
import { missingFields, parsePyFormat, PyFormatError, renderPyFormat, type PyFormatTemplate } from "../../util/py-format.ts";

/** A template that failed its start-time check; `message` says which placeholder or brace. */
export class JudgePromptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgePromptError";
  }
}

/** A checked judge prompt template. */
export class JudgePrompt {
  private readonly t: PyFormatTemplate;

  /** Parse `text` and check that every placeholder is one of `fields` (JudgePromptError otherwise). */
  constructor(
    readonly text: string,
    readonly fields: readonly string[],
  ) {
    try {
      this.t = parsePyFormat(text);
    } catch (e) {
      throw new JudgePromptError((e as PyFormatError).message);
    }
    const missing = missingFields(this.t, fields);
    if (missing.length > 0) {
      throw new JudgePromptError(`placeholder(s) ${missing.map((m) => `{${m}}`).join(", ")} are not supplied by this server (it supplies ${fields.map((f) => `{${f}}`).join(", ")}); write '{{' and '}}' for literal braces`);
    }
  }

  /** The prompt for one call (`template.format(**values)`). */
  render(values: Record<string, string>): string {
    return renderPyFormat(this.t, values);
  }
}
