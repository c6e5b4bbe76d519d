/**
 * resources_servers/math_formal_lean: the model's Lean 4 proof is assembled into a full file
 * (task header + formal statement + proof body, verify/lean/proof.ts) and compiled by the
 * NeMo-Skills sandbox (`POST /execute`, language lean4). Reward 1 when the compile completes with no
 * `sorry`; on failure the answer carries error feedback and a correction prompt for a refinement
 * agent (the server is stateless; `turn_index` is echoed). A sandbox that is down or answers
 * garbage is a typed judge_failed failure, not a reward (_skills-sandbox.ts).
 */
import Type from "typebox";
import { JudgeError, resourcesServerApp } from "../../servers/resources.ts";
import { buildLean4Proof, correctionPrompt, determineProofStatus, errorFeedback } from "../../verify/lean/proof.ts";
import { bool, clientsFor, str } from "../_support.ts";
import { ConfigError } from "../../errors.ts";
import { outputText } from "../../verify/response-text.ts";
import { pyStrip } from "../../util/py-str.ts";
import { sandboxExecute } from "./_skills-sandbox.ts";
import { echoFields } from "./_proof-support.ts";
import type { BuiltinComponent, ComponentContext } from "../registry.ts";

const CLASS_NAME = "MathFormalLeanResourcesServer";
const MaybeStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const EMPTY = "Empty generation received. Please provide a valid Lean 4 proof.";

/** A positive number leaf key (strings from env interpolation accepted), or a ConfigError naming it. */
function num(ctx: ComponentContext, key: string, fallback: number): number {
  const v = ctx.config[key];
  if (v === undefined || v === null || v === "") return fallback;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${ctx.instanceName}: ${key} must be a positive number, got ${JSON.stringify(v)}`, { key });
  return n;
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "math_formal_lean",
  className: CLASS_NAME,
  create: async (ctx) => {
    const address = { host: str(ctx, "sandbox_host") ?? "127.0.0.1", port: num(ctx, "sandbox_port", 6000) };
    const timeout = num(ctx, "compilation_timeout", 30);
    const maxOut = num(ctx, "max_output_characters", 1000);
    const mode = str(ctx, "extract_code_mode") ?? "last";
    const build = { extractCodeMode: mode, restateFormalStatement: bool(ctx, "restate_formal_statement", true), stripTheoremFromProof: bool(ctx, "strip_theorem_from_proof", true) };
    const template = str(ctx, "refinement_prompt_template");
    const http = clientsFor(ctx).http;
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: { header: Type.String(), formal_statement: Type.String(), informal_prefix: MaybeStr, name: MaybeStr, turn_index: Type.Optional(Type.Integer()) },
      async verify(body) {
        const generation = outputText(body.response);
        const turnIndex = (body.turn_index as number | undefined) ?? 0;
        const { turn_index: _t, ...rest } = echoFields(body);
        const echoed = { informal_prefix: null, name: null, ...rest };
        const base = { ...echoed, compiler_output: null, turn_index: turnIndex, error_feedback: null, correction_prompt: null };
        if (pyStrip(generation) === "") {
          return { ...base, reward: 0.0, proof_status: "empty_generation", predicted_proof: "", needs_correction: true, error_feedback: EMPTY, correction_prompt: correctionPrompt("(empty)", EMPTY, template) };
        }
        const predicted = buildLean4Proof(generation, { header: body.header as string, formal_statement: body.formal_statement as string }, build);
        // Upstream's client allows the compile timeout plus 5 s of network overhead.
        const out = await sandboxExecute(http, address, { generated_code: predicted, language: "lean4", timeout, max_output_characters: maxOut }, timeout + 5);
        const compiler = { process_status: out.process_status, stdout: out.stdout, stderr: out.stderr };
        // D40: a wall-clock limit never decides a verdict. The sandbox's own compile timeout is a typed
        // failure (judge_failed, retried on --resume), not upstream's reward 0.
        if (compiler.process_status === "timeout") {
          throw new JudgeError(`sandbox ${address.host}:${address.port} reported a compile timeout (compilation_timeout ${timeout} s); a wall-clock limit does not decide a verdict (D40): raise compilation_timeout or retry with --resume`);
        }
        const status = determineProofStatus(compiler);
        if (status === "completed") return { ...base, reward: 1.0, proof_status: status, predicted_proof: predicted, compiler_output: compiler, needs_correction: false };
        const feedback = errorFeedback(compiler, predicted);
        return {
          ...base,
          reward: 0.0,
          proof_status: status,
          predicted_proof: predicted,
          compiler_output: compiler,
          needs_correction: true,
          error_feedback: feedback,
          correction_prompt: correctionPrompt(generation, feedback, template),
        };
      },
    });
  },
};
