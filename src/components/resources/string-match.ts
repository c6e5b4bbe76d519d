/** resources_servers/string_match: free-form answers graded by extraction mode and NeMo RL's string-match cascade (verify/rules/string-match.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { assistantText } from "../../verify/rules/arc-grid.ts";
import { EXTRACTION_MODES, gradeStringMatchRow, type ExtractionMode } from "../../verify/rules/string-match.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "StringMatchResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "string_match",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        expected_answer: Type.String(),
        extraction_mode: Type.Optional(Type.Union(EXTRACTION_MODES.map((m) => Type.Literal(m)))),
        case_sensitive: Type.Optional(Type.Boolean()),
        metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      verify: (body) =>
        gradeStringMatchRow(assistantText(body.response), body.expected_answer as string, (body.extraction_mode as ExtractionMode | undefined) ?? "final_answer", body.case_sensitive === true),
    });
  },
};
