/**
 * resources_servers/math_advanced_calculations: eleven altered arithmetic tools (POST /<name> with
 * a, b, radians, base) and a verify that every ground-truth value was among the tool outputs.
 */
import Type from "typebox";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp, type ToolSpec } from "../../servers/resources.ts";
import { callMathTool, MATH_TOOLS, MathToolError, gradeMultiverse } from "../../verify/rules/multiverse-math.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "MultiVerseMathHardResourcesServer";
const Num = Type.Optional(Type.Union([Type.Number(), Type.Null()]));
const ToolArgs = Type.Object({ a: Num, b: Num, radians: Num, base: Num }, { additionalProperties: true });

function tool(name: string): ToolSpec {
  return {
    schema: ToolArgs,
    handler: (args) => {
      try {
        return { solution: callMathTool(name, args as Record<string, number>) };
      } catch (e) {
        // Upstream answers a failed tool with a 500 carrying the Python error's message.
        if (e instanceof MathToolError) throw new HttpError(500, e.message);
        throw e;
      }
    },
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "math_advanced_calculations",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      tools: Object.fromEntries(Object.keys(MATH_TOOLS).map((n) => [n, tool(n)])),
      verifySchema: {
        ground_truth: Type.Union([Type.Array(Type.Number()), Type.String()]),
        id: Type.Integer(),
        depth: Type.Integer(),
        breadth: Type.Integer(),
      },
      verify: (body) => {
        let gt: unknown;
        try {
          gt = typeof body.ground_truth === "string" ? JSON.parse(body.ground_truth) : undefined;
        } catch {
          gt = undefined;
        }
        if (!Array.isArray(gt)) throw new HttpError(422, `ground_truth must be a JSON list of numbers in a string, got ${JSON.stringify(body.ground_truth).slice(0, 200)}`);
        const { ground_truth, id, depth, breadth } = body;
        return { ground_truth, id, depth, breadth, reward: gradeMultiverse(body.response, gt) };
      },
    });
  },
};
