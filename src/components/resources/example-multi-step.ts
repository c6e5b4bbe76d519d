/**
 * resources_servers/example_multi_step: `get_synonym_value` (sum of code points) and
 * `extract_synonym_values`; verify compares the last extracted list with the expected one.
 */
import Type from "typebox";
import { resourcesServerApp } from "../../servers/resources.ts";
import type { BuiltinComponent } from "../registry.ts";

const CLASS_NAME = "ExampleMultiStepResourcesServer";

/** Sum of Unicode code points, as Python's `sum(map(ord, s))`. */
export function synonymValue(s: string): number {
  let n = 0;
  for (const ch of s) n += ch.codePointAt(0)!;
  return n;
}

/** Grade one rollout (upstream's fields and rules). */
export function gradeMultiStep(body: Record<string, unknown>): Record<string, unknown> {
  const expected = (body.expected_synonym_values as number[]) ?? [];
  const output = ((body.response as { output?: Record<string, unknown>[] }).output ?? []) as Record<string, unknown>[];
  let actual: number[] = [];
  for (let i = output.length - 1; i >= 0; i--) {
    const o = output[i]!;
    if (o.type === "function_call" && o.name === "extract_synonym_values") {
      try {
        const parsed = JSON.parse(String(o.arguments)) as { synonym_values?: unknown };
        actual = Array.isArray(parsed.synonym_values) ? (parsed.synonym_values as number[]) : [];
      } catch {
        actual = [];
      }
      break;
    }
  }
  const accuracy = expected.length === actual.length && expected.every((v, i) => v === actual[i]);
  const actualSet = new Set(actual);
  const overlap = [...new Set(expected)].filter((v) => actualSet.has(v)).length;
  const setOverlap = expected.length === 0 ? 0 : overlap / expected.length;
  return {
    reward: accuracy ? 1.0 : 0.0,
    parsed_synonym_values: actual,
    accuracy,
    set_overlap: setOverlap,
    original_term_minefield_hit: (actual as unknown[]).includes(body.minefield_label) || (actual as unknown[]).includes(body.minefield_label_value),
    order_instruction_following_failure: !accuracy && setOverlap === 1.0,
  };
}

/** The component. */
export const component: BuiltinComponent = {
  serverType: "resources_servers",
  implementation: "example_multi_step",
  className: CLASS_NAME,
  async create(ctx) {
    return resourcesServerApp({
      className: CLASS_NAME,
      instanceName: ctx.instanceName,
      tools: {
        get_synonym_value: {
          schema: Type.Object({ synonym: Type.String() }, { additionalProperties: true }),
          handler: (args) => ({ synonym_value: synonymValue(String(args.synonym)) }),
        },
        extract_synonym_values: {
          schema: Type.Object({ synonym_values: Type.Array(Type.Integer()) }, { additionalProperties: true }),
          handler: () => ({ success: true }),
        },
      },
      verifySchema: {
        expected_synonym_values: Type.Array(Type.Integer()),
        minefield_label: Type.Optional(Type.String()),
        minefield_label_value: Type.Optional(Type.Integer()),
      },
      verify: gradeMultiStep,
    });
  },
};
