/**
 * resources_servers/example_tool_call_multireward: one `get_weather` tool and three decoupled {0,1}
 * rewards (correctness, schema_valid, format) returned in `reward_components`, with `reward` their sum.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeMultiReward } from "../../verify/rules/tool-call-match.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "ToolCallMultiRewardResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "example_tool_call_multireward",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      tools: {
        get_weather: {
          schema: Type.Object({ city: Type.String() }, { additionalProperties: true }),
          handler: (args) => ({ city: args.city, weather_description: `The weather in ${String(args.city)} is sunny.` }),
        },
      },
      verifySchema: { expected_call: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
      verify: (body) => {
        const expected = (body.expected_call as Record<string, unknown> | undefined) ?? {};
        const tools = (body.responses_create_params as Record<string, unknown>).tools;
        return { expected_call: expected, ...gradeMultiReward(body.response, tools, expected) };
      },
    });
  },
};
