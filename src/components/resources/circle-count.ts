/** resources_servers/circle_count: the first `\boxed{N}` must equal the number of circles of the target colour. */
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeCount } from "../../verify/rules/circles.ts";
import { outputText } from "../../verify/response-text.ts";
import type { BuiltinComponent } from "../registry.ts";
import { CIRCLE_FIELDS } from "./circle-click.ts";

const CLASS_NAME = "CircleCountResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "circle_count",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: CIRCLE_FIELDS,
      verify: (body) => {
        const circles = (body.circles as Record<string, unknown>[] | undefined) ?? [];
        const target = (body.target_color as string | undefined) ?? "";
        return { circles, target_color: target, ...gradeCount(outputText(body.response), circles, target) };
      },
    });
  },
};
