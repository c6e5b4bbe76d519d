/** resources_servers/swerl_llm_judge: SWE multiple choice read from `<solution>…</solution>` and graded exactly (verify/rules/swerl-choice.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeSwerlChoice, SWERL_GRADING_MODES, type SwerlGradingMode } from "../../verify/rules/swerl-choice.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "SWEJudgeResourcesServer";
const OptStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "swerl_llm_judge",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        instance_id: OptStr,
        dataset_name: OptStr,
        dataset_split: OptStr,
        expected_answer: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()])),
        options: Type.Optional(Type.Union([Type.Array(Type.Record(Type.String(), Type.String())), Type.Null()])),
        metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
        grading_mode: Type.Optional(Type.Union(SWERL_GRADING_MODES.map((m) => Type.Literal(m)))),
      },
      verify: (body) =>
        gradeSwerlChoice(body.response, {
          options: body.options as Record<string, unknown>[] | null | undefined,
          expected_answer: body.expected_answer as string | string[] | null | undefined,
          grading_mode: body.grading_mode as SwerlGradingMode | undefined,
        }),
    });
  },
};
