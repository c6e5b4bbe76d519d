/**
 * scicode_agent's pure steps: each sub-step's prompt context (earlier steps with the model's own
 * code, the next step's description and header), the code block taken from an answer, and the
 * recognition of a context-window failure (which fails the remaining steps instead of the run).
 */

/** Solution recorded for a sub-step that could not be generated (context window exceeded); scored as failed. */
export const OUT_OF_CONTEXT = "_ran_out_of_context_";

/** One SciCode sub-step as the row carries it (other fields pass through untouched). */
export interface SubStep {
  step_description_prompt: string;
  step_background: string;
  function_header: string;
  return_line: string;
}

function describe(step: SubStep, withBackground: boolean): string {
  return withBackground ? `${step.step_description_prompt}\n${step.step_background}` : step.step_description_prompt;
}

/**
 * The prompt pieces for sub-step `cur`: the earlier steps (description [+ background], the code
 * used for it, separated by `------`), the next step (description + header + return line), and
 * the earlier code joined by newlines.
 */
export function processProblemSteps(steps: SubStep[], cur: number, previousCode: (string | null)[], withBackground: boolean): { problemSteps: string; nextStep: string; previousCode: string } {
  const lines: string[] = [];
  const code: string[] = [];
  for (let i = 0; i < cur; i++) {
    lines.push(describe(steps[i]!, withBackground), String(previousCode[i] ?? "None"), "------");
    code.push(String(previousCode[i] ?? "None"));
  }
  const next = steps[cur]!;
  return {
    problemSteps: lines.slice(0, -1).join("\n\n"),
    nextStep: [describe(next, withBackground), `${next.function_header}\n\n${next.return_line}`].join("\n\n"),
    previousCode: code.join("\n"),
  };
}

/**
 * Import lines at a line start (leading whitespace, possibly earlier blank lines, included):
 * Python's `^\s*(import .*|from .*\s+import\s+.*)` under MULTILINE, with `.` as "not a newline".
 */
const IMPORT_LINE = /^\s*(?:import [^\n]*|from [^\n]*\s+import\s+[^\n]*)/gm;

/** The Python code of an answer: the ```python block (else the first ``` block, else all of it), import lines removed. */
export function extractPythonScript(response: string): string {
  let script = response;
  if (response.includes("```")) {
    const fence = response.includes("```python") ? "```python" : "```";
    script = response.split(fence)[1]!.split("```")[0]!;
  }
  return script.replace(IMPORT_LINE, "");
}

/** The phrases model servers use when the prompt does not fit (upstream's list). */
const CONTEXT_WINDOW_MARKERS = [
  "Requested token count exceeds",
  "exceeds maximum input length",
  "should not exceed max_seq_len",
  "reduce the length of the input messages",
  "'max_completion_tokens' is too large",
  "max_tokens must be at least 1, got -",
];

/** Best-effort: does this error text say the context window was exceeded? */
export function isContextWindowError(text: string): boolean {
  return CONTEXT_WINDOW_MARKERS.some((m) => text.includes(m));
}
