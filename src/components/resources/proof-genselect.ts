/**
 * resources_servers/proof_genselect: pairwise proof selection scored by verify/proof/genselect.ts over
 * the assistant messages' output_text parts. The response is upstream's BaseVerifyResponse (reward
 * only). Upstream's optional PROOF_GENSELECT_LOG_JSONL_PATH debug log is not reproduced.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { extractBestSolution } from "../../verify/proof/genselect.ts";
import { bool } from "../_support.ts";
import type { BuiltinComponent } from "../registry.ts";

type Obj = Record<string, unknown>;
const CLASS_NAME = "ProofGenSelectResourcesServer";
const MaybeNum = Type.Optional(Type.Union([Type.Number(), Type.Null()]));

/** The assistant messages' output_text parts joined with nothing between them. */
function outputTexts(response: unknown): string {
  let text = "";
  for (const item of ((response as Obj | undefined)?.output ?? []) as Obj[]) {
    if (item?.type !== "message" || item.role !== "assistant" || !Array.isArray(item.content)) continue;
    for (const c of item.content as Obj[]) if (c?.type === "output_text") text += typeof c.text === "string" ? c.text : "";
  }
  return text;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "proof_genselect",
  className: CLASS_NAME,
  create: async (ctx) => {
    const assertThinkEnd = bool(ctx, "assert_think_end", false);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { problem: Type.String(), proof_1: Type.String(), proof_2: Type.String(), correct_index: Type.Integer(), score_1: MaybeNum, score_2: MaybeNum },
      verify(body) {
        const text = outputTexts(body.response);
        if (!text) return { reward: 0.0 };
        return { reward: extractBestSolution(text, assertThinkEnd).index === body.correct_index ? 1.0 : 0.0 };
      },
    });
  },
};
