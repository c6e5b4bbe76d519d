/**
 * Rule-based grading of function calls against expected calls: xlam_fc (every expected call matched
 * one-to-one, nothing extra) and example_tool_call_multireward (correctness / schema_valid / format).
 * An expected argument matches when the predicted call has the key with a Python-equal value; extra
 * predicted arguments are allowed, as upstream.
 */
import { pyEqual } from "../../util/py-equal.ts";
import { argumentsObject, functionCalls, outputItems, type FunctionCall } from "../tool-calls.ts";

type Obj = Record<string, unknown>;

/** Every expected argument is present in the predicted ones with an equal value. */
function argsCover(predicted: Obj, expected: Obj): boolean {
  return Object.entries(expected).every(([k, v]) => Object.hasOwn(predicted, k) && pyEqual(predicted[k], v));
}

/** xlam_fc: the calls with arguments parsed (unparsable → {}), and the all-or-nothing reward. */
export function gradeXlam(response: unknown, expected: Obj[]): { reward: number; num_expected: number; num_predicted: number; num_correct: number; predicted_calls: Obj[] } {
  const predicted = functionCalls(response).map((c) => ({ name: c.name, arguments: argumentsObject(c.arguments).value }));
  let reward: number, correct = 0;
  if (expected.length === 0) reward = predicted.length === 0 ? 1.0 : 0.0;
  else {
    const used = new Set<number>();
    for (const exp of expected) {
      const expArgs = argumentsObject(exp.arguments ?? {}).value;
      const i = predicted.findIndex((p, idx) => !used.has(idx) && p.name === exp.name && argsCover(p.arguments, expArgs));
      if (i >= 0) {
        used.add(i);
        correct++;
      }
    }
    reward = correct === expected.length && expected.length === predicted.length ? 1.0 : 0.0;
  }
  return { reward, num_expected: expected.length, num_predicted: predicted.length, num_correct: correct, predicted_calls: predicted };
}

function requiredParams(tools: unknown, name: unknown): unknown[] {
  for (const t of Array.isArray(tools) ? (tools as Obj[]) : []) {
    if (t && t.name === name) {
      const req = (t.parameters as Obj | undefined)?.required;
      return Array.isArray(req) ? req : [];
    }
  }
  return [];
}

function callMatches(p: FunctionCall, expected: Obj): boolean {
  if (Object.keys(expected).length === 0 || p.name !== expected.name) return false;
  const expArgs = (expected.arguments as Obj | null | undefined) || {};
  const got = argumentsObject(p.arguments ?? {}).value;
  // Upstream reads a missing predicted key as None, so an expected null matches an absent argument.
  return Object.entries(expArgs).every(([k, v]) => pyEqual(Object.hasOwn(got, k) ? got[k] : null, v));
}

/** example_tool_call_multireward: three {0,1} components and their sum as the reward. */
export function gradeMultiReward(response: unknown, tools: unknown, expected: Obj): Obj {
  const calls = functionCalls(response);
  const hasText = outputItems(response).some((o) => o.type === "message");
  const format = calls.length === 1 && !hasText ? 1.0 : 0.0;
  let schemaValid = 0.0;
  if (calls.length > 0) {
    const first = argumentsObject(calls[0]!.arguments);
    schemaValid = first.valid && requiredParams(tools, calls[0]!.name).every((k) => typeof k === "string" && Object.hasOwn(first.value, k)) ? 1.0 : 0.0;
  }
  const correctness = calls.some((c) => callMatches(c, expected)) ? 1.0 : 0.0;
  const reward_components = { correctness, schema_valid: schemaValid, format };
  return {
    reward: correctness + schemaValid + format,
    reward_components,
    correctness,
    schema_valid: schemaValid,
    format,
    predicted_calls: calls.map((c) => ({ name: c.name, arguments: argumentsObject(c.arguments).value })),
  };
}
