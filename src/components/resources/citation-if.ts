/**
 * resources_servers/citation_if: citation instruction-following on frozen retrieval trajectories
 * (verify/rules/citation-if.ts). Any tool route answers a fixed terminal text, so a policy that keeps
 * calling tools (max_steps 1) ends its rollout and scores 0 at the structural gate.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { responseShape, scoreCitationIf, TERMINAL_TOOL_RESPONSE } from "../../verify/rules/citation-if.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "CitationIfResourcesServer";

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "citation_if",
  className: CLASS_NAME,
  async create(ctx) {
    const app = resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { verifier: Type.Record(Type.String(), Type.Unknown()) },
      verify: (body) => {
        const { text, functionCalls } = responseShape(body.response);
        const { reward, details } = scoreCitationIf(text, functionCalls, body.verifier as Record<string, unknown>);
        // Upstream's request model declares only `verifier`: other row fields are not echoed.
        return { verifier: body.verifier, reward, match_details: details };
      },
    });
    // The catch-all tool route comes last, so every named route of the server kind still wins.
    app.routes.push({ method: "POST", path: "/:tool_name", handler: () => new Response(TERMINAL_TOOL_RESPONSE, { headers: { "content-type": "text/plain; charset=utf-8" } }) });
    return app;
  },
};
