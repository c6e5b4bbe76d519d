/** resources_servers/format_verification: citation markers and freeform formatting checks (verify/format-verification). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { assistantText, verifyFormat } from "../../verify/format-verification.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "FormatVerificationResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "format_verification",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { verifier: Type.Record(Type.String(), Type.Unknown()) },
      verify: (body) => {
        const verifier = body.verifier as Record<string, unknown>;
        const { reward, details } = verifyFormat(assistantText(body.response as Record<string, unknown>), verifier);
        return { verifier, reward, match_details: details };
      },
    });
  },
};
