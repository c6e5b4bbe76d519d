/** resources_servers/xlam_fc: Salesforce xLAM function calling; all expected calls matched one-to-one and nothing extra (verify/rules/tool-call-match.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { gradeXlam } from "../../verify/rules/tool-call-match.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "XlamFcResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "xlam_fc",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { expected_answers: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))) },
      verify: (body) => {
        const expected = (body.expected_answers as Record<string, unknown>[] | undefined) ?? [];
        return { expected_answers: expected, ...gradeXlam(body.response, expected) };
      },
    });
  },
};
