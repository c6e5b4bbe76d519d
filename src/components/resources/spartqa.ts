/** resources_servers/spartqa: SpartQA choose-object questions, reward 1 iff the answer resolves to the gold label (verify/rules/spartqa.ts). */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { responseOutputText } from "../../verify/rules/response-output-text.ts";
import { scoreSpartqa, spartqaKeyMetrics, spartqaMetrics } from "../../verify/rules/spartqa.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "SpartqaResourcesServer";
type Obj = Record<string, unknown>;

/** Grade one verify body: the row echoed (with upstream's defaults for target / options / verifier_metadata) plus the score fields. */
export function gradeSpartqa(body: Obj): Obj {
  const { responses_create_params: _rcp, response, ...row } = body;
  const meta = (body.verifier_metadata ?? {}) as Obj;
  const target = (body.target as string | undefined) ?? "";
  const options = (body.options as string[] | undefined) ?? [];
  // Python's `or`: an empty top-level value falls back to verifier_metadata.
  const gold = target || (meta.target === undefined ? "" : String(meta.target));
  const opts = options.length ? options : Array.isArray(meta.options) ? (meta.options as unknown[]).map(String) : [];
  return { target: "", options: [], verifier_metadata: null, ...row, ...scoreSpartqa(responseOutputText(response), gold, opts) };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "spartqa",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        target: Type.Optional(Type.String()),
        options: Type.Optional(Type.Array(Type.String())),
        verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      verify: (body) => gradeSpartqa(body),
      computeMetrics: (tasks) => spartqaMetrics(tasks),
      keyMetrics: spartqaKeyMetrics,
    });
  },
};
