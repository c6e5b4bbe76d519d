/** resources_servers/example_single_tool_call: one `get_weather` tool; reward 1 when the model called it. */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "SimpleWeatherResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "example_single_tool_call",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      tools: {
        get_weather: {
          schema: Type.Object({ city: Type.String() }, { additionalProperties: true }),
          handler: (args) => ({ city: args.city, weather_description: `The weather in ${String(args.city)} is cold.` }),
        },
      },
      // Newest upstream grades the call itself (0.5.1 always gave 1.0): the reward says the tool was used.
      verify: (body) => {
        const output = ((body.response as { output?: Record<string, unknown>[] }).output ?? []) as Record<string, unknown>[];
        return { reward: output.some((o) => o.type === "function_call" && o.name === "get_weather") ? 1.0 : 0.0 };
      },
    });
  },
};
