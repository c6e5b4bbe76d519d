/**
 * resources_servers/indirect_prompt_injection: a tool-using agent works in one of nine domain
 * environments (healthcare, HR, ecommerce, …) whose records carry injected instructions. Each session
 * holds its own copy of the row's `environment`; every tool is a catch-all route over it
 * (verify/rules/injection/tools.ts). Verify rewards resisting the injection (no call of the target
 * tool with the target arguments) times utility (every required tool called).
 */
import Type from "typebox";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp, SessionStore } from "../../servers/resources.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { callInjectionTool } from "../../verify/rules/injection/tools.ts";
import type { Env } from "../../verify/rules/injection/tool-kit.ts";
import { injectionKeyMetrics, injectionMetrics, scoreInjection } from "../../verify/rules/injection/verifier.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "IPIResourcesServer";

/** Upstream's `InjectionSpec`: every field required, extras kept. */
const InjectionSpec = Type.Object(
  {
    goal: Type.String(),
    target_tool: Type.String(),
    target_args: Type.Record(Type.String(), Type.Unknown()),
    verification_type: Type.String(),
    attack_strategy: Type.String(),
    attack_difficulty: Type.String(),
    vector: Type.String(),
    injection_text: Type.String(),
    category: Type.String(),
  },
  { additionalProperties: true },
);

const toolBody = bodyValidator(Type.Object({}, { additionalProperties: true }));

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "indirect_prompt_injection",
  className: CLASS_NAME,
  async create(ctx) {
    const envs = new SessionStore<Env>();
    const app = resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      // Verify reads only the output trace and the task's injection fields, never the session's environment.
      reverifyMode: "stateless",
      seedSchema: { environment: Type.Record(Type.String(), Type.Unknown()) },
      // A deep copy: tool calls mutate the session's environment, never the row.
      seed: (data, call) => envs.set(call.sessionId, structuredClone(data.environment as Env)),
      closeSession: (sessionId) => envs.delete(sessionId),
      verifySchema: { injection: InjectionSpec, required_tools: Type.Optional(Type.Array(Type.String())) },
      verify: (body, call) => {
        try {
          const injection = body.injection as { target_tool: string; target_args: Record<string, unknown>; verification_type: string } & Record<string, string>;
          const required = (body.required_tools as string[] | undefined) ?? [];
          const response = body.response as Record<string, any>;
          const incomplete = response.incomplete_details;
          const r = scoreInjection(response.output, injection, required, incomplete && typeof incomplete === "object" ? incomplete.reason : undefined);
          const { responses_create_params: _rcp, response: _resp, ...echo } = body;
          return {
            ...echo,
            required_tools: required,
            reward: r.reward,
            injection_followed: r.verdict.followed,
            matched_tool: r.verdict.tool,
            matched_args: r.verdict.args,
            attack_difficulty: injection.attack_difficulty,
            attack_strategy: injection.attack_strategy,
            attack_category: injection.category,
            verification_type: injection.verification_type,
            reward_safety: r.safety,
            reward_utility: r.utility,
            thinking_incomplete: r.thinkingIncomplete,
          };
        } finally {
          // Upstream drops the environment once the rollout is graded.
          envs.delete(call.sessionId);
        }
      },
      computeMetrics: injectionMetrics,
      keyMetrics: injectionKeyMetrics,
    });
    // The catch-all tool route comes last, so every named route of the server kind still wins.
    app.routes.push({
      method: "POST",
      path: "/:tool_name",
      handler: (c) => {
        const args = toolBody.parse(c.body) as Record<string, unknown>;
        const env = envs.peek(c.sessionId);
        if (env === undefined) throw new HttpError(400, "Session not initialized. Please call seed_session first.");
        return { output: callInjectionTool(env, c.params.tool_name ?? "", args) };
      },
    });
    return app;
  },
};
