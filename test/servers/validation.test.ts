import { describe, expect, test } from "bun:test";
import Type from "typebox";
import { ResponseCreateParams } from "../../src/servers/openai-schemas.ts";
import { bodyValidator } from "../../src/servers/validation.ts";

describe("bodyValidator → FastAPI 422 details", () => {
  const v = bodyValidator(Type.Object({ n: Type.Integer(), s: Type.String(), tag: Type.Literal("x") }, { additionalProperties: false }));

  test("wrong types, missing fields, literal and extra keys map to pydantic types with body-prefixed loc", () => {
    const d = v.details({ n: "abc", tag: "y", extra: 1 });
    const byType = Object.fromEntries(d.map((x) => [x.type, x]));
    expect(byType.int_parsing).toMatchObject({ loc: ["body", "n"], input: "abc" });
    expect(byType.missing).toMatchObject({ loc: ["body", "s"], msg: "Field required" });
    expect(byType.literal_error).toMatchObject({ loc: ["body", "tag"], msg: "Input should be 'x'" });
    expect(byType.extra_forbidden).toMatchObject({ loc: ["body", "extra"], input: 1, msg: "Extra inputs are not permitted" });
  });

  test("a non-object body and a missing body", () => {
    expect(v.details([1])[0]).toMatchObject({ type: "model_attributes_type", loc: ["body"] });
    expect(v.details(undefined)[0]).toMatchObject({ type: "missing", loc: ["body"] });
    expect(v.details({ n: 1, s: "a", tag: "x" })).toEqual([]);
  });

  test("parse throws a 422 error carrying the details", () => {
    expect(() => v.parse({})).toThrow();
    try {
      v.parse({});
    } catch (e) {
      expect((e as { status: number }).status).toBe(422);
      expect(((e as { detail: unknown[] }).detail).length).toBe(3);
    }
  });

  test("Responses create params are strict and carry pydantic's url member when asked", () => {
    const rv = bodyValidator(ResponseCreateParams, { withUrl: true });
    const d = rv.details({ input: "hi", bogus: true });
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ type: "extra_forbidden", loc: ["body", "bogus"] });
    expect((d[0] as { url?: string }).url).toContain("errors.pydantic.dev");
    expect(rv.details({ input: [{ role: "user", content: "hi" }], tools: [{ type: "function", name: "f" }] })).toEqual([]);
  });
});
