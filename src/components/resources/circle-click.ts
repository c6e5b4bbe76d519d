/** resources_servers/circle_click: a `click(x, y)` tool; reward 1 when the click lands in the first circle of the target colour. */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeClick } from "../../verify/rules/circles.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "CircleClickResourcesServer";

/** Declared task fields shared with circle_count. */
export const CIRCLE_FIELDS = {
  circles: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
  target_color: Type.Optional(Type.String()),
};

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "circle_click",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      tools: {
        // Upstream echoes whatever it is given (x and y are `Any`, both required).
        click: { schema: Type.Object({ x: Type.Unknown(), y: Type.Unknown() }, { required: ["x", "y"], additionalProperties: true }), handler: (args) => ({ x: args.x, y: args.y }) },
      },
      verifySchema: CIRCLE_FIELDS,
      verify: (body) => {
        const circles = (body.circles as Record<string, unknown>[] | undefined) ?? [];
        const target = (body.target_color as string | undefined) ?? "";
        return { circles, target_color: target, ...gradeClick(body.response, circles, target) };
      },
    });
  },
};
