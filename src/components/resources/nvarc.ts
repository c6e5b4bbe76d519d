/**
 * resources_servers/nvarc: ARC-AGI grids. Transductive mode (the model writes the output grid) reads it
 * with verify/rules/nvarc.ts; inductive mode (the model writes a Python `transform(grid)`) runs the
 * program on the test input in the CodeRunner (verify/code/nvarc.ts), started only when the server may
 * see inductive rows. A host without python3 makes inductive rows typed `verifier` failures (D27).
 */
import Type from "typebox";
import { ConfigError } from "../../errors.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { extractTransformCode, runTransform } from "../../verify/code/nvarc.ts";
import type { CodeRunner } from "../../verify/code/runner.ts";
import { assistantText, parseGrid, sameGrid } from "../../verify/rules/nvarc.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";
import { startCodeRunner } from "./_code-runner.ts";

const CLASS_NAME = "NVARCResourcesServer";

/** The leaf's mode and inductive settings (upstream: agent_mode "transductive", python_timeout_seconds 30). */
function settings(ctx: Pick<ComponentContext, "instanceName" | "config">): { mode: string; timeout: number; processes: number } {
  const int = (key: string, d: number, min: number) => {
    const raw = ctx.config[key];
    if (raw === undefined || raw === null) return d;
    const v = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw new ConfigError(`${ctx.instanceName}: ${key} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`, { key });
    return v;
  };
  return { mode: String(ctx.config.agent_mode ?? "transductive"), timeout: int("python_timeout_seconds", 30, 0), processes: int("num_processes", 8, 1) };
}

const GridSchema = Type.Array(Type.Array(Type.Integer()));

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "nvarc",
  className: CLASS_NAME,
  checkConfig: (ctx) => void settings(ctx),
  async create(ctx) {
    const cfg = settings(ctx);
    // Rows may ask for inductive mode on a transductive server too, so the runner starts on first use.
    let runner: Promise<CodeRunner> | undefined;
    const codeRunner = () => (runner ??= startCodeRunner(ctx.instanceName, cfg.processes));
    if (cfg.mode === "inductive") await codeRunner();
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
      async verify(body) {
        const agentMode = (body.agent_mode as string | null | undefined) || cfg.mode;
        const expected = (body.expected_output as number[][] | undefined) ?? [];
        const text = assistantText(body.response);
        let predicted: number[][] | null;
        if (agentMode === "inductive") {
          const code = extractTransformCode(text);
          predicted = code === null ? null : (await runTransform(await codeRunner(), code, (body.test_input as number[][] | undefined) ?? [], cfg.timeout)).grid;
        } else predicted = parseGrid(text);
        const exact = sameGrid(predicted, expected);
        const { responses_create_params: _r, response: _s, expected_output: _e, agent_mode: _m, ...row } = body;
        return { ...row, train: body.train ?? [], test_input: body.test_input ?? [], task_id: body.task_id ?? null, reward: exact ? 1.0 : 0.0, expected_output: expected, predicted_output: predicted, extraction_successful: predicted !== null, exact_match: exact, agent_mode: agentMode };
      },
    });
  },
};
