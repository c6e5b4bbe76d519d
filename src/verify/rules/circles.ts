/** circle_click and circle_count: grade a click (a `click` tool call) or a `\boxed{N}` count against the drawn circles. */
import { pyEqual } from "../../util/py-equal.ts";
import { pyInt } from "../../util/py-int.ts";
import { functionCalls } from "../tool-calls.ts";

type Obj = Record<string, unknown>;

function num(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new TypeError(`circle coordinates must be numbers, got ${JSON.stringify(v)}`);
}

/** circle_click: the first `click` call's (int) coordinates; a hit when inside the first circle of the target colour. */
export function gradeClick(response: unknown, circles: Obj[], targetColor: string): { reward: number; clicked_x: number | null; clicked_y: number | null; hit: boolean } {
  let x: number | null = null, y: number | null = null;
  const call = functionCalls(response).find((c) => c.name === "click");
  if (call) {
    try {
      if (typeof call.arguments !== "string") throw new TypeError("arguments are not a string");
      const args = JSON.parse(call.arguments) as Obj;
      if (!args || typeof args !== "object" || Array.isArray(args)) throw new TypeError("arguments are not an object");
      if (!Object.hasOwn(args, "x")) throw new TypeError("no x");
      x = pyInt(args.x);
      if (!Object.hasOwn(args, "y")) throw new TypeError("no y");
      y = pyInt(args.y);
    } catch {
      // Upstream leaves an unparsable click unset (a half-parsed one keeps x): reward 0.
    }
  }
  let hit = false;
  if (x !== null && y !== null) {
    const target = circles.find((c) => pyEqual(c.color, targetColor));
    if (target) hit = Math.sqrt((x - num(target.x)) ** 2 + (y - num(target.y)) ** 2) <= num(target.radius);
  }
  return { reward: hit ? 1.0 : 0.0, clicked_x: x, clicked_y: y, hit };
}

/** circle_count: the first `\boxed{digits}` against the number of circles of the target colour. */
export function gradeCount(text: string, circles: Obj[], targetColor: string): { reward: number; predicted_count: number | null; expected_count: number; correct: boolean } {
  const m = /\\boxed\{(\d+)\}/.exec(text);
  const predicted = m ? Number.parseInt(m[1]!, 10) : null;
  const expected = circles.filter((c) => pyEqual(c.color, targetColor)).length;
  const correct = predicted !== null && predicted === expected;
  return { reward: correct ? 1.0 : 0.0, predicted_count: predicted, expected_count: expected, correct };
}
