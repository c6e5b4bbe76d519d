/**
 * resources_servers/instruction_following: IFEval / IFEvalG constraints graded by verify/ifeval.
 * Text = the last output item's first content part (as upstream); `binary` (default) or `fraction`.
 */
import Type from "typebox";
import { RequestValidationError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp } from "../../servers/resources.ts";
import { evaluateInstructions, type GradingMode, type IfevalVerdict } from "../../verify/ifeval/evaluate.ts";
import { warmIfeval } from "../../verify/ifeval/warm.ts";
import type { BuiltinComponent } from "../registry.ts";
import { poolSizeOf, poolStatusRoute, verifierPool, WorkerJobError } from "../_worker-pool.ts";

const CLASS_NAME = "InstructionFollowingResourcesServer";
const LEGACY_FIELDS = ["instruction_id_list", "prompt", "kwargs", "grading_mode"] as const;
const REQUIRED = ["instruction_id_list", "prompt", "kwargs"] as const;

type Obj = Record<string, unknown>;

/** Rows that keep the verifier fields at the top level: copy each into verifier_metadata unless it is already there. */
export function migrateLegacyMetadata(body: Obj): Obj {
  const vm: Obj = { ...((body.verifier_metadata as Obj | null | undefined) ?? {}) };
  for (const f of LEGACY_FIELDS) if (!(f in vm) && f in body) vm[f] = body[f];
  return vm;
}

/** The graded text: `response.output[-1].content[0].text`, "" when the last item has no content. */
export function finalResponseText(response: Obj): string {
  const output = response.output;
  if (!Array.isArray(output) || output.length === 0) return "";
  const last = output.at(-1) as Obj | null;
  const content = last && typeof last === "object" ? last.content : undefined;
  if (!Array.isArray(content) || content.length === 0) return "";
  const first = content[0] as Obj | null;
  // Upstream raises (a 500) on a first part without text (a refusal); we grade it as empty text.
  return first && typeof first === "object" && typeof first.text === "string" ? first.text : "";
}

function invalid(msg: string, input: unknown, loc: (string | number)[] = ["body"]): never {
  throw new RequestValidationError([{ type: "value_error", loc, msg: `Value error, ${msg}`, input }]);
}

/** Grade one verify body (exported for tests and reverify); `evaluate` may run the checks elsewhere (the worker pool). */
export function gradeInstructionFollowing(body: Obj): Obj;
export function gradeInstructionFollowing(body: Obj, evaluate: (ids: unknown[], kwargs: unknown[], text: string, mode: GradingMode) => Promise<IfevalVerdict>): Promise<Obj>;
export function gradeInstructionFollowing(body: Obj, evaluate?: (ids: unknown[], kwargs: unknown[], text: string, mode: GradingMode) => Promise<IfevalVerdict>): Obj | Promise<Obj> {
  if (body.verifier_metadata !== undefined && body.verifier_metadata !== null && (typeof body.verifier_metadata !== "object" || Array.isArray(body.verifier_metadata))) {
    invalid("verifier_metadata must be an object", body.verifier_metadata, ["body", "verifier_metadata"]);
  }
  const vm = migrateLegacyMetadata(body);
  const missing = REQUIRED.filter((f) => !(f in vm));
  if (missing.length) invalid(`verifier_metadata is missing required fields: [${missing.map((m) => `'${m}'`).join(", ")}]`, body);
  const ids = vm.instruction_id_list;
  const kwargs = vm.kwargs;
  if (!Array.isArray(ids)) invalid("verifier_metadata.instruction_id_list must be a list of instruction ids", ids, ["body", "verifier_metadata", "instruction_id_list"]);
  if (!Array.isArray(kwargs)) invalid("verifier_metadata.kwargs must be a list (one object or null per instruction)", kwargs, ["body", "verifier_metadata", "kwargs"]);
  const mode = vm.grading_mode ?? "binary";
  if (mode !== "binary" && mode !== "fraction") throw new Error(`Invalid grading_mode: ${JSON.stringify(mode)} (use "binary" or "fraction")`);
  const text = finalResponseText(body.response as Obj);
  const answer = (verdict: IfevalVerdict): Obj => ({
    id: body.id,
    verifier_metadata: vm,
    reward: verdict.reward,
    follow_all_instructions: verdict.followAll,
    follow_instruction_list: verdict.followList,
  });
  if (evaluate) return evaluate(ids, kwargs, text, mode as GradingMode).then(answer);
  return answer(evaluateInstructions(ids, kwargs, text, mode as GradingMode));
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "instruction_following",
  className: CLASS_NAME,
  async create(ctx) {
    // Parse the Punkt and language profiles now, off any request's path.
    setTimeout(warmIfeval, 0);
    // The checks run in the process's verifier pool; a check that throws is recomputed here for its exact error.
    const { pool, release } = verifierPool(poolSizeOf(ctx.instanceName, ctx.config));
    const evaluate = async (ids: unknown[], kwargs: unknown[], text: string, mode: GradingMode) => {
      try {
        return await pool.run<IfevalVerdict & Obj>({ task: "ifeval", ids, kwargs, text, mode }, { guardMs: 60_000 });
      } catch (e) {
        if (e instanceof WorkerJobError && e.failure === "reported") return evaluateInstructions(ids, kwargs, text, mode);
        throw e;
      }
    };
    const app = resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      reverifyMode: "stateless",
      verifySchema: {
        id: Type.Integer(),
        verifier_metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
      },
      verify: (body) => gradeInstructionFollowing(body, evaluate),
    });
    return { ...app, routes: [...app.routes, poolStatusRoute(pool)], close: release };
  },
};
