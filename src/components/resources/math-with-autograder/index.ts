/**
 * resources_servers/math_with_autograder: math_with_judge with a Skills-style one-way autograder as the
 * judge fallback. The judge sees the raw LaTeX of the last balanced \boxed{…} (else the extracted answer,
 * else the whole text) as the model solution, one call, `\boxed{Correct}` / `\boxed{Incorrect}` (earlier
 * label wins). The prompt is a YAML file (`user` required, `system` optional) named by `judge_prompt_path`.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../../errors.ts";
import { judgeMessages } from "../../../verify/judge/judge-client.ts";
import type { JudgePrompt } from "../../../verify/judge/prompt.ts";
import { str } from "../../_support.ts";
import { checkedPrompt, serverFile } from "../../_judge.ts";
import type { BuiltinComponent, ComponentContext } from "../../registry.ts";
import { type MathJudgeFn, mathServer } from "../math-with-judge/index.ts";

const CLASS_NAME = "MathWithAutograderResourcesServer";
const FIELDS = ["problem", "predicted_answer", "expected_answer"] as const;
const CORRECT = "\\boxed{Correct}";
const INCORRECT = "\\boxed{Incorrect}";

/** The raw content of the last balanced \boxed{…} (or \fbox{…}), as NeMo Skills' search_boxed finds it. */
export function searchBoxed(text: string): string | null {
  if (!text.includes("\\boxed") && !text.includes("\\fbox")) return null;
  let idx = text.lastIndexOf("\\boxed");
  if (idx < 0) idx = text.lastIndexOf("\\fbox");
  let open = 0;
  for (let i = idx; i < text.length; i++) {
    if (text[i] === "{") open++;
    else if (text[i] === "}" && --open === 0) {
      const block = text.slice(idx, i + 1);
      for (const prefix of ["\\boxed{", "\\fbox{"]) if (block.startsWith(prefix)) return block.slice(prefix.length, -1);
      return null;
    }
  }
  return null;
}

/** Correct when `\boxed{Correct}` occurs before (or without) `\boxed{Incorrect}` in the last output_text. */
export function autograderVerdict(response: Record<string, unknown>): boolean {
  const output = response.output as Record<string, unknown>[] | undefined;
  const last = Array.isArray(output) && output.length > 0 ? output[output.length - 1] : undefined;
  if (last?.type !== "message" || !Array.isArray(last.content) || last.content.length === 0) return false;
  const part = last.content[last.content.length - 1] as Record<string, unknown>;
  if (part?.type !== "output_text" || typeof part.text !== "string") return false;
  const eq = part.text.indexOf(CORRECT);
  const neq = part.text.indexOf(INCORRECT);
  if (eq < 0) return false;
  return neq < 0 || eq < neq;
}

async function loadAutograderPrompt(ctx: ComponentContext): Promise<{ user: JudgePrompt; system: JudgePrompt | null }> {
  const path = str(ctx, "judge_prompt_path") ?? "resources_servers/math_with_autograder/prompts/judge.yaml";
  const abs = await serverFile(ctx, "resources_servers", "math_with_autograder", path, "judge_prompt_path");
  const doc = parseYaml(readFileSync(abs, "utf8")) as Record<string, unknown> | null;
  if (!doc || typeof doc.user !== "string") throw new ConfigError(`${ctx.instanceName}: judge_prompt_path ${abs} has no 'user' key`, { key: "judge_prompt_path", hint: "a prompt YAML needs `user:` (and may have `system:`)" });
  const system = typeof doc.system === "string" ? checkedPrompt(ctx, `judge_prompt_path (${abs}) system`, doc.system, FIELDS) : null;
  return { user: checkedPrompt(ctx, `judge_prompt_path (${abs}) user`, doc.user, FIELDS), system };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "math_with_autograder",
  className: CLASS_NAME,
  async create(ctx) {
    const prompt = await loadAutograderPrompt(ctx);
    const judgeFn: MathJudgeFn = async (judge, i) => {
      const values = { problem: i.question, predicted_answer: searchBoxed(i.generated) || i.extracted || i.generated, expected_answer: i.expected };
      const call = await judge.respond(judgeMessages(prompt.user.render(values), prompt.system?.render(values)));
      return { reward: autograderVerdict(call.response) ? 1.0 : 0.0, evaluations: [call] };
    };
    return mathServer(ctx, CLASS_NAME, judgeFn);
  },
};
