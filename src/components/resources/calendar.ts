/**
 * resources_servers/calendar: the assistant's final message must hold a JSON calendar whose events
 * meet the expected durations, windows and constraints without overlapping (verify/rules/calendar.ts).
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import { outputItems } from "../../verify/tool-calls.ts";
import { gradeCalendar } from "../../verify/rules/calendar.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "CalendarResourcesServer";

/** The text upstream grades: the first content part of the LAST output item (a reasoning-only end gives ""). */
export function lastItemText(response: unknown): string {
  const items = outputItems(response);
  const last = items[items.length - 1];
  const content = last?.content;
  if (!Array.isArray(content) || content.length === 0) return "";
  const first = content[0] as Record<string, unknown> | undefined;
  return typeof first?.text === "string" ? first.text : "";
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "calendar",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      verifySchema: { exp_cal_state: Type.Record(Type.String(), Type.Unknown()) },
      verify: (body) => {
        const text = lastItemText(body.response);
        const exp = body.exp_cal_state as Record<string, unknown>;
        return { exp_cal_state: exp, reward: text ? gradeCalendar(text, exp).reward : 0 };
      },
    });
  },
};
