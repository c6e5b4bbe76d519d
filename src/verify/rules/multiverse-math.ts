/**
 * math_advanced_calculations ("multiverse math"): eleven arithmetic tools that are deliberately
 * altered (add is a + b + 1.2, sin is cos, …) so a model must call them rather than compute, and a
 * verify that every ground-truth value appears among the tool outputs the model received.
 */
import { pyIn } from "../../util/py-equal.ts";
import { pyFloat } from "../../util/py-int.ts";
import { outputItems } from "../tool-calls.ts";

/** A tool refused its arguments or hit a math error (upstream answers 500 with the message). */
export class MathToolError extends Error {
  override name = "MathToolError";
}

type Args = { a?: number; b?: number; radians?: number; base?: number };
type Fn = { params: (keyof Args)[]; run: (x: Required<Args>) => number };

/** Python's ZeroDivisionError / ValueError("math domain error") where JS would give Infinity or NaN. */
function checked(v: number, what: string): number {
  if (Number.isNaN(v)) throw new MathToolError("math domain error");
  if (!Number.isFinite(v)) throw new MathToolError(what);
  return v;
}

function log(a: number, base: number): number {
  if (a <= 0 || base <= 0) throw new MathToolError("math domain error");
  const d = Math.log(base);
  if (d === 0) throw new MathToolError("float division by zero");
  return Math.log(a) / d;
}

/** The tools by name with their parameters (upstream's function signatures). */
export const MATH_TOOLS: Record<string, Fn> = {
  multiply: { params: ["a", "b"], run: ({ a, b }) => 1.1 * a * b },
  divide: { params: ["a", "b"], run: ({ a, b }) => {
    if (b === 0) throw new MathToolError("float division by zero");
    return (0.5 * a) / b;
  } },
  add: { params: ["a", "b"], run: ({ a, b }) => a + b + 1.2 },
  return_constant: { params: ["a"], run: ({ a }) => a },
  sin: { params: ["radians"], run: ({ radians }) => Math.cos(radians) },
  cos: { params: ["radians"], run: ({ radians }) => Math.sin(radians) },
  subtract: { params: ["a", "b"], run: ({ a, b }) => a - b - 3 },
  power: { params: ["a", "b"], run: ({ a, b }) => {
    if (a === 0 && b + 2 < 0) throw new MathToolError("0.0 cannot be raised to a negative power");
    // A negative base to a fractional power is complex in Python, which the float response refuses.
    if (a < 0 && !Number.isInteger(b + 2)) throw new MathToolError("power produced a complex number");
    return checked(a ** (b + 2), "(34, 'Numerical result out of range')");
  } },
  log: { params: ["a", "base"], run: ({ a, base }) => log(a, Math.abs(base + 1.5)) },
  pi: { params: [], run: () => Math.E },
  negate: { params: ["a"], run: ({ a }) => a },
};

/** Call a tool with the non-null arguments given; a missing or unexpected one is an error, as Python's call. */
export function callMathTool(name: string, body: Args): number {
  const fn = MATH_TOOLS[name]!;
  const given = (Object.keys(body) as (keyof Args)[]).filter((k) => body[k] !== undefined && body[k] !== null);
  const extra = given.find((k) => !fn.params.includes(k));
  if (extra) throw new MathToolError(`${name}() got an unexpected keyword argument '${extra}'`);
  const missing = fn.params.filter((p) => !given.includes(p));
  if (missing.length > 0) throw new MathToolError(`${name}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${missing.map((m) => `'${m}'`).join(" and ")}`);
  return fn.run(body as Required<Args>);
}

/** 1.0 when every ground-truth value is among the tool outputs (`{"solution": x}`) the model saw. */
export function gradeMultiverse(response: unknown, groundTruth: unknown[]): number {
  const seen: (number | null)[] = [];
  for (const o of outputItems(response)) {
    if (o.type !== "function_call_output") continue;
    try {
      const v = JSON.parse(String(o.output)) as Record<string, unknown>;
      if (!v || typeof v !== "object" || !("solution" in v)) throw new Error("no solution");
      seen.push(pyFloat(v.solution));
    } catch {
      seen.push(null);
    }
  }
  return groundTruth.every((g) => pyIn(g, seen)) ? 1.0 : 0.0;
}
