/**
 * resources_servers/nvarc: ARC-AGI grids. Transductive mode (the model writes the output grid) is built
 * in on verify/rules/nvarc.ts. Inductive mode runs the model's Python `transform()` in upstream's own
 * subprocess sandbox; gym does not build that in: a config selecting it is a config error, a row asking
 * for it a 500 naming the way out (run upstream's Python server as an external server).
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { pyError } from "../../servers/py-error.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { assistantText, parseGrid, sameGrid } from "../../verify/rules/nvarc.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "NVARCResourcesServer";
const INDUCTIVE = "inductive mode (executing the model's Python transform()) is not built into gym; run upstream's nvarc server as an external server (gym list nvarc shows the recipe) or use agent_mode: transductive";

function mode(ctx: Pick<ComponentContext, "instanceName" | "config">): string {
  const m = ctx.config.agent_mode ?? "transductive";
  if (m === "inductive") throw new ConfigError(`${ctx.instanceName}: ${INDUCTIVE}`, { key: `${ctx.instanceName}.resources_servers.nvarc.agent_mode` });
  return String(m);
}

const GridSchema = Type.Array(Type.Array(Type.Integer()));

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "nvarc",
  className: CLASS_NAME,
  checkConfig: (ctx) => void mode(ctx),
  async create(ctx) {
    const configured = mode(ctx);
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: {
        train: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
        test_input: Type.Optional(GridSchema),
        expected_output: Type.Optional(GridSchema),
        task_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        agent_mode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      verify: (body) => {
        const agentMode = (body.agent_mode as string | null | undefined) || configured;
        if (agentMode === "inductive") throw pyError("RuntimeError", INDUCTIVE);
        const expected = (body.expected_output as number[][] | undefined) ?? [];
        const predicted = parseGrid(assistantText(body.response));
        const exact = sameGrid(predicted, expected);
        const { responses_create_params: _r, response: _s, expected_output: _e, agent_mode: _m, ...row } = body;
        return { ...row, train: body.train ?? [], test_input: body.test_input ?? [], task_id: body.task_id ?? null, reward: exact ? 1.0 : 0.0, expected_output: expected, predicted_output: predicted, extraction_successful: predicted !== null, exact_match: exact, agent_mode: agentMode };
      },
    });
  },
};
