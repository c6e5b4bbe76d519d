import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { scriptedChatCompletion, scriptedResponse, SCRIPTED_TEXT } from "../../src/components/models/_scripted-core.ts";
import { ReplayBook } from "../../src/components/models/_scripted-replay.ts";
import { synthesize, synthesizeArguments } from "../../src/components/models/_synth-args.ts";

type Obj = Record<string, any>;

describe("argument synthesis from JSON schema", () => {
  test("default, const, enum, examples, then by type; objects get required properties only", () => {
    const schema = {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["c", "f"] },
        n: { type: "integer", minimum: 3 },
        flag: { type: "boolean" },
        d: { type: "number", default: 1.5 },
        k: { const: "K" },
        e: { type: "string", examples: ["ex"] },
        tags: { type: "array", items: { type: "string" }, minItems: 2 },
        nested: { type: "object", properties: { a: { type: "null" }, b: { type: "string" } }, required: ["a"] },
        optional: { type: "string" },
      },
      required: ["city", "unit", "n", "flag", "d", "k", "e", "tags", "nested"],
    };
    expect(synthesize(schema)).toEqual({ city: "test", unit: "c", n: 3, flag: false, d: 1.5, k: "K", e: "ex", tags: ["test", "test"], nested: { a: null } });
    expect(JSON.parse(synthesizeArguments(undefined))).toEqual({});
  });
});

describe("scripted answers", () => {
  const tools = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];

  test("calls the first tool until a tool result is in the input, then answers text", () => {
    const first = scriptedResponse({ input: [{ role: "user", content: "weather in sf?" }], tools }, "scripted_model") as Obj;
    expect(first.output).toHaveLength(1);
    expect(first.output[0]).toMatchObject({ type: "function_call", name: "get_weather", arguments: '{"city":"test"}' });
    expect(first.output[0].call_id).toMatch(/^call_/);
    const second = scriptedResponse({ input: [{ role: "user", content: "weather in sf?" }, first.output[0], { type: "function_call_output", call_id: first.output[0].call_id, output: "cold" }], tools }, "scripted_model") as Obj;
    expect(second.output[0]).toMatchObject({ type: "message", role: "assistant", content: [{ type: "output_text", text: SCRIPTED_TEXT }] });
    expect(second.usage.input_tokens).toBeGreaterThan(first.usage.input_tokens);
    expect(second.usage.output_tokens_details).toEqual({ reasoning_tokens: 0 });
  });

  test("tool_choice naming a tool picks it; tool_choice none answers text", () => {
    const two = [...tools, { type: "function", name: "second", parameters: { type: "object", properties: { n: { type: "integer", minimum: 2 } }, required: ["n"] } }];
    const named = scriptedResponse({ input: "x", tools: two, tool_choice: { type: "function", name: "second" } }, "m") as Obj;
    expect(named.output[0]).toMatchObject({ name: "second", arguments: '{"n":2}' });
    expect((scriptedResponse({ input: "x", tools: two, tool_choice: "none" }, "m") as Obj).output[0].type).toBe("message");
  });

  test("no tools → text, with request fields echoed", () => {
    const r = scriptedResponse({ input: "hi there", temperature: 0.3 }, "m") as Obj;
    expect(r).toMatchObject({ object: "response", model: "m", temperature: 0.3, tools: [], tool_choice: "auto", parallel_tool_calls: true });
    expect(r.usage.input_tokens).toBe(2);
  });

  test("structured output: a json_schema response_format / text.format is answered with a JSON object of that schema", () => {
    const schema = { type: "object", additionalProperties: false, required: ["pick", "why", "ok"], properties: { pick: { anyOf: [{ enum: ["uncertain", "actor_a"], type: "string" }, { type: "null" }] }, why: { type: "string", minLength: 1 }, ok: { type: "boolean" } } };
    const want = { pick: "uncertain", why: "test", ok: false };
    const chat = scriptedChatCompletion({ messages: [{ role: "user", content: "judge" }], response_format: { type: "json_schema", json_schema: { name: "v", strict: true, schema } } }, "m") as Obj;
    expect(JSON.parse(chat.choices[0].message.content)).toEqual(want);
    const resp = scriptedResponse({ input: "judge", text: { format: { type: "json_schema", name: "v", schema } } }, "m") as Obj;
    expect(JSON.parse(resp.output[0].content[0].text)).toEqual(want);
    // json_object (no schema) and plain requests keep the fixed text.
    expect((scriptedChatCompletion({ messages: [], response_format: { type: "json_object" } }, "m") as Obj).choices[0].message.content).toBe(SCRIPTED_TEXT);
  });
});

describe("replay", () => {
  const book = () => ReplayBook.load(join(import.meta.dir, "..", "fixtures", "components", "replay-rollouts.jsonl"));
  const input = [{ role: "user", content: "What's the weather in SF?" }];

  test("turn 1 returns the recorded function-call batch; turn 2 (unset fields dropped) returns the final message", () => {
    const b = book();
    const t1 = b.next(input);
    expect(t1.output.map((o) => o.type)).toEqual(["function_call"]);
    expect(t1.output[0]!.call_id).toBe("call_rec_1");
    // The agent echoes items as it received them, without the nulls the rollouts file holds.
    const t2 = b.next([...input, { type: "function_call", call_id: "call_rec_1", name: "get_weather", arguments: '{"city":"SF"}', id: "call_rec_1", status: "completed" }, { type: "function_call_output", call_id: "call_rec_1", output: '{"city":"SF","weather_description":"The weather in SF is cold."}' }]);
    expect(t2.output).toHaveLength(1);
    expect(t2.output[0]).toMatchObject({ type: "message", role: "assistant" });
  });

  test("no match is a 404 naming the file and the closest rollout", () => {
    try {
      book().next([...input, { type: "function_call_output", call_id: "other", output: "x" }]);
      throw new Error("expected a 404");
    } catch (e) {
      expect((e as { status: number }).status).toBe(404);
      expect(String((e as Error).message)).toContain("replay-rollouts.jsonl");
      expect(String((e as Error).message)).toContain("closest is line 1");
    }
    expect(() => book().next("something else")).toThrow(/no recorded rollout/);
  });
});
