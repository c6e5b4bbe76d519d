/** resources_servers/example_single_tool_call: one `get_weather` tool; verify always rewards 1.0, as upstream does. */
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
      // Upstream's verify returns 1.0 whatever the model did (spec components §1.3a): the example shows the plumbing, not grading.
      verify: () => ({ reward: 1.0 }),
    });
  },
};
