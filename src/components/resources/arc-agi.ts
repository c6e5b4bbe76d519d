/** resources_servers/arc_agi: the boxed answer grid must equal the expected output grid (verify/rules/arc-grid.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeArcGrid } from "../../verify/rules/arc-grid.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "ARCAGIResourcesServer";
const Grid = Type.Array(Type.Array(Type.Integer()));

/** Declared task fields (upstream's ARCAGIRunRequest). */
export const ARC_FIELDS = {
  train: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
  test_input: Type.Optional(Grid),
  expected_output: Type.Optional(Grid),
  task_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "arc_agi",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: ARC_FIELDS,
      verify: (body) => {
        const expected = (body.expected_output as number[][] | undefined) ?? [];
        return { train: body.train ?? [], test_input: body.test_input ?? [], expected_output: expected, task_id: body.task_id ?? null, ...gradeArcGrid(body.response, expected) };
      },
    });
  },
};
