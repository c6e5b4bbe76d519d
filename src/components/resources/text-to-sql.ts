/**
 * resources_servers/text_to_sql: an LLM judge decides whether the generated SQL is functionally
 * equivalent to the expected query (`[[A=B]]` / `[[A!=B]]`, earlier label wins), with the swap
 * check on by default. Upstream keeps its prompts in prompts.py; they ship verbatim as
 * prompts/judge_system_message.txt and prompts/judge_prompt_template.txt.
 */
import { readFileSync } from "node:fs";
import Type from "typebox";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { pyStrip } from "../../util/py-str.ts";
import { judgeMessages, type JudgeEvaluation } from "../../verify/judge/judge-client.ts";
import { extractSql, normalizeDialect } from "../../verify/judge/sql.ts";
import { outputText } from "../../verify/response-text.ts";
import { bool, str } from "../_support.ts";
import { checkedPrompt, judgeFromContext, serverFile } from "../_judge.ts";
import type { BuiltinComponent } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "TextToSqlResourcesServer";
const DIALECTS = new Set(["mysql", "postgresql", "sqlite"]);

/** The judge's text: every assistant message's non-blank parts, stripped and joined by newlines. */
export function sqlJudgeText(response: Obj): string {
  const texts: string[] = [];
  for (const o of (response.output ?? []) as Obj[]) {
    if (o?.type !== "message" || (o.role !== undefined && o.role !== null && o.role !== "assistant")) continue;
    if (Array.isArray(o.content)) {
      const parts = (o.content as Obj[]).map((c) => c?.text).filter((t): t is string => typeof t === "string" && pyStrip(t) !== "").map((t) => pyStrip(t));
      if (parts.length > 0) texts.push(parts.join("\n"));
    } else if (typeof o.content === "string" && pyStrip(o.content) !== "") texts.push(pyStrip(o.content));
  }
  return pyStrip(texts.join("\n"));
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "text_to_sql",
  className: CLASS_NAME,
  async create(ctx) {
    const judge = judgeFromContext(ctx, 64);
    const file = async (p: string, key: string) => readFileSync(await serverFile(ctx, "resources_servers", "text_to_sql", p, key), "utf8");
    const system = ctx.config.judge_system_message === undefined ? await file("prompts/judge_system_message.txt", "judge_system_message") : str(ctx, "judge_system_message") ?? null;
    const prompt = checkedPrompt(ctx, "judge prompt template", await file("prompts/judge_prompt_template.txt", "judge_prompt_template"), ["sql_prompt", "sql_context", "first_answer", "second_answer", "sql_dialect"]);
    const equal = str(ctx, "judge_equal_label") ?? "[[A=B]]";
    const notEqual = str(ctx, "judge_not_equal_label") ?? "[[A!=B]]";
    const swap = bool(ctx, "check_twice_swap", true);
    const swapFails = ctx.config.reward_if_swap_fails === undefined || ctx.config.reward_if_swap_fails === null ? 0.0 : Number(ctx.config.reward_if_swap_fails);

    async function evaluate(row: Obj, dialect: string, first: string, second: string): Promise<[boolean, JudgeEvaluation]> {
      const user = prompt.render({ sql_prompt: row.sql_prompt as string, sql_context: (row.sql_context as string | undefined) ?? "", first_answer: first, second_answer: second, sql_dialect: dialect });
      const call = await judge.respond(judgeMessages(user, system));
      const text = sqlJudgeText(call.response);
      const eq = text ? text.indexOf(equal) : -1;
      const neq = text ? text.indexOf(notEqual) : -1;
      const label = eq >= 0 && (neq < 0 || eq < neq) ? equal : neq >= 0 ? notEqual : null;
      return [label === equal, { ...call, verdict_label: label }];
    }

    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        uuid: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
        sql: Type.String(), sql_dialect: Type.String(), sql_context: Type.Optional(Type.String()), sql_prompt: Type.String(),
        metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      async verify(body) {
        const dialect = normalizeDialect(body.sql_dialect as string);
        if (!dialect) throw new HttpError(422, "sql_dialect is required but was not provided");
        if (!DIALECTS.has(dialect)) throw new HttpError(422, `Unsupported SQL dialect '${dialect}'. Supported: ${[...DIALECTS].sort().join(", ")}`);
        const expected = body.sql as string;
        const generated = outputText(body.response);
        const base = { uuid: body.uuid ?? null, sql: expected, sql_dialect: dialect, sql_context: (body.sql_context as string | undefined) ?? "", sql_prompt: body.sql_prompt, metadata: body.metadata ?? null };
        if (!generated) return { ...base, reward: 0.0, model_output: "", extracted_sql: null, judge_passed: false, failure_reason: "no_sql_extracted", judge_evaluations: [] };
        const extracted = extractSql(generated);
        const evaluations: JudgeEvaluation[] = [];
        let reward = 0.0;
        let passed = false;
        let failure = "no_sql_extracted";
        if (extracted) {
          const [first, e1] = await evaluate(body, dialect, expected, extracted);
          evaluations.push(e1);
          failure = "judge_evaluation_failed";
          if (first && !swap) [passed, reward, failure] = [true, 1.0, "none"];
          else if (first) {
            const [second, e2] = await evaluate(body, dialect, extracted, expected);
            evaluations.push(e2);
            if (second) [passed, reward, failure] = [true, 1.0, "none"];
            else reward = swapFails;
          }
        }
        return { ...base, reward, model_output: generated, extracted_sql: extracted ?? null, judge_passed: passed, failure_reason: failure, judge_evaluations: evaluations };
      },
    });
  },
};
