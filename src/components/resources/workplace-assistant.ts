/**
 * resources_servers/workplace_assistant (WorkBench): 27 tools over per-session copies of five CSV
 * tables (email, calendar, analytics, project management, CRM) behind a catch-all `POST /{tool}`
 * route, and a verifier that replays the predicted and the gold actions on fresh tables and compares
 * the final states (verify/rules/workplace/). A tool's Python exception is answered as text so the
 * model can correct itself; an unseeded session is a 400, as upstream.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Type from "typebox";
import { embeddedRoot } from "../../assets/embedded.ts";
import { HttpError } from "../../runtime/http/http-types.ts";
import { resourcesServerApp, SessionStore } from "../../servers/resources.ts";
import { bodyValidator } from "../../servers/validation.ts";
import { outputItems } from "../../verify/tool-calls.ts";
import { sameFinalState } from "../../verify/rules/workplace/state-diff.ts";
import type { WorkplaceState } from "../../verify/rules/workplace/tool-def.ts";
import { copyState, CSV_FILES, type CsvTexts, initialState, routeToolCall } from "../../verify/rules/workplace/tools.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "WorkbenchResourcesServer";

/** The pristine tables, read once from the shipped CSVs. */
async function loadInitialState(): Promise<WorkplaceState> {
  const dir = join(await embeddedRoot(), "resources_servers", "workplace_assistant", "csv_data");
  const texts = Object.fromEntries(Object.entries(CSV_FILES).map(([k, rel]) => [k, readFileSync(join(dir, rel), "utf8")])) as CsvTexts;
  return initialState(texts);
}

/** The function_call items of a response, in order (upstream's `predicted_function_calls`). */
export function predictedCalls(response: unknown): Record<string, unknown>[] {
  return outputItems(response).filter((o) => o.type === "function_call");
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "workplace_assistant",
  className: CLASS_NAME,
  async create(ctx) {
    const base = await loadInitialState();
    const sessions = new SessionStore<WorkplaceState>();
    const toolBody = bodyValidator(Type.Record(Type.String(), Type.Unknown()));
    const app = resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      // verify replays both action lists on fresh tables: it never reads the session.
      reverifyMode: "stateless",
      seed: (_data, call) => sessions.set(call.sessionId, copyState(base)),
      closeSession: (sessionId) => sessions.delete(sessionId),
      verifySchema: {
        ground_truth: Type.Union([Type.Array(Type.Record(Type.String(), Type.String())), Type.String()]),
        // pydantic's lax int also takes a numeric string.
        id: Type.Union([Type.Integer(), Type.String({ pattern: "^\\s*[+-]?\\d+\\s*$" })]),
        category: Type.String(),
        environment_name: Type.String(),
      },
      verify: (body) => {
        const gold = body.ground_truth as Record<string, string>[] | string;
        // A str ground truth iterates as characters, each of which fails as an action: no gold changes.
        const reward = sameFinalState(base, predictedCalls(body.response), typeof gold === "string" ? [...gold] : gold) ? 1.0 : 0.0;
        return { ground_truth: gold, id: Number(body.id), category: body.category, environment_name: body.environment_name, reward };
      },
    });
    // The catch-all tool route comes last, so every named route of the server kind still wins.
    app.routes.push({
      method: "POST",
      path: "/:tool_name",
      handler: (rctx) => {
        const args = toolBody.parse(rctx.body);
        const state = sessions.peek(rctx.sessionId);
        if (!state) throw new HttpError(400, "Session not initialized. Please call seed_session first.");
        return { output: routeToolCall(state, rctx.params.tool_name ?? "", args) };
      },
    });
    return app;
  },
};
