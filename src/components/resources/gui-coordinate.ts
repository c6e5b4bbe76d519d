/** resources_servers/gui_coordinate: a predicted click point graded by distance to the expected one (verify/rules/gui-coordinate.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { assistantText } from "../../verify/rules/arc-grid.ts";
import { gradeGuiCoordinate } from "../../verify/rules/gui-coordinate.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "GuiCoordinateResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "gui_coordinate",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        expected_answer: Type.String(),
        max_dist: Type.Optional(Type.Number()),
        metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      verify: (body) => gradeGuiCoordinate(assistantText(body.response), body.expected_answer as string, (body.max_dist as number | undefined) ?? 0.15),
    });
  },
};
