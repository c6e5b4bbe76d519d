/** `gym dataset render` (components §6, upstream `ng_materialize_prompts`) through the CLI. */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePyJson, pyDumps, pyFloatRepr, pyStrOf } from "../../src/dataset/render-python.ts";
import { runGym, tempDir } from "../helpers/tmp.ts";

const PROMPT = ['system: "You answer {subject} questions."', 'user: "Q: {question}\\nPut the answer in \\\\boxed{{}}. Hints: {hints} ok={ok} none={missing_val}"', ""].join("\n");

function write(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe("Python's view of JSON numbers", () => {
  test("repr(float) and json.dumps keep 1.0, big ints and exponents as Python writes them", () => {
    expect([1, 1.5, -0, 1e16, 1.2345678901234568e17, 0.0001, 0.00001, 123456.789, 1e-7].map(pyFloatRepr)).toEqual(["1.0", "1.5", "-0.0", "1e+16", "1.2345678901234568e+17", "0.0001", "1e-05", "123456.789", "1e-07"]);
    const row = parsePyJson('{"a": 1.0, "b": 2, "c": [3.0, 4.25, 12345678901234567890], "d": 1e-5, "e": 1E2, "f": "1.0"}') as Record<string, unknown>;
    expect(pyDumps(row)).toBe('{"a": 1.0, "b": 2, "c": [3.0, 4.25, 12345678901234567890], "d": 1e-05, "e": 100.0, "f": "1.0"}');
    expect(pyStrOf(row.a)).toBe("1.0");
    expect(pyStrOf(row.c)).toBe("[3.0, 4.25, 12345678901234567890]");
    expect(pyStrOf({ k: row.a, s: "it's" })).toBe(`{'k': 1.0, 's': "it's"}`);
  });
});

describe("gym dataset render", () => {
  test("materialises prompts into responses_create_params.input, keeps the other fields, records the prompt path", async () => {
    await using dir = await tempDir();
    const prompt = write(dir.path, "prompts/p.yaml", PROMPT);
    const rows = [
      { question: "2+2?", subject: "math", hints: ["add", "é"], ok: true, missing_val: null, responses_create_params: { temperature: 0.3, tools: [] }, expected_answer: "4" },
      { question: "x", subject: "logic", hints: [], ok: false, missing_val: 1.5 },
    ];
    write(dir.path, "raw.jsonl", rows.map((r) => JSON.stringify(r)).join("\n") + "\n\n");
    const r = await runGym(["dataset", "render", "-i", "raw.jsonl", "--prompt-config", "prompts/p.yaml", "-o", "out/rendered.jsonl"], { cwd: dir.path });
    expect(r.stderr).toContain("Materialized 2 rows");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(join(dir.path, "out/rendered.jsonl"));
    const lines = readFileSync(join(dir.path, "out/rendered.jsonl"), "utf8").trimEnd().split("\n");
    expect(lines.length).toBe(2);
    // Python json.dumps spacing and ensure_ascii, as upstream writes it.
    expect(lines[0]).toContain('"hints": ["add", "\\u00e9"]');
    const out = lines.map((l) => JSON.parse(l));
    expect(out[0].responses_create_params).toEqual({
      temperature: 0.3,
      tools: [],
      input: [
        { role: "system", content: "You answer math questions." },
        { role: "user", content: "Q: 2+2?\nPut the answer in \\boxed{}. Hints: ['add', 'é'] ok=True none=None" },
      ],
    });
    expect(out[0].expected_answer).toBe("4");
    expect(out[0].prompt_config_used).toBe(prompt);
    expect(out[1].responses_create_params.input[1].content).toBe("Q: x\nPut the answer in \\boxed{}. Hints: [] ok=False none=1.5");
  });

  test("integral floats render and round-trip as Python does (1.0 stays 1.0)", async () => {
    await using dir = await tempDir();
    write(dir.path, "p.yaml", 'user: "score={score} n={n} xs={xs}"\n');
    write(dir.path, "raw.jsonl", '{"score": 1.0, "n": 3, "xs": [2.0, 0.5], "responses_create_params": {"temperature": 1.0}}\n');
    const r = await runGym(["dataset", "render", "-i", "raw.jsonl", "--prompt-config", "p.yaml", "-o", "o.jsonl"], { cwd: dir.path });
    expect(r.code).toBe(0);
    const line = readFileSync(join(dir.path, "o.jsonl"), "utf8").trimEnd();
    expect(line).toStartWith('{"score": 1.0, "n": 3, "xs": [2.0, 0.5], "responses_create_params": {"temperature": 1.0, "input": [{"role": "user", "content": "score=1.0 n=3 xs=[2.0, 0.5]"}]}');
  });

  test("the prompt config resolves through --search-dir; an empty pre-filled input is replaced", async () => {
    await using dir = await tempDir();
    await using plugin = await tempDir();
    const prompt = write(plugin.path, "benchmarks/demo/prompts/default.yaml", 'user: "{q}"\n');
    write(dir.path, "raw.jsonl", JSON.stringify({ q: "hello", responses_create_params: { input: [] } }) + "\n");
    const r = await runGym(["dataset", "render", "-i", "raw.jsonl", "--prompt-config", "benchmarks/demo/prompts/default.yaml", "-o", "o.jsonl", "--search-dir", plugin.path], { cwd: dir.path });
    expect(r.code).toBe(0);
    const row = JSON.parse(readFileSync(join(dir.path, "o.jsonl"), "utf8"));
    expect(row.responses_create_params.input).toEqual([{ role: "user", content: "hello" }]);
    expect(row.prompt_config_used).toBe(prompt);
  });

  test("rows with a pre-filled input are all reported together and nothing is written (exit 2)", async () => {
    await using dir = await tempDir();
    write(dir.path, "p.yaml", 'user: "{q}"\n');
    const rows = [{ q: "a", responses_create_params: { input: "pre" } }, { q: "b" }, { q: "c", responses_create_params: { input: [{ role: "user", content: "x" }] } }];
    write(dir.path, "raw.jsonl", rows.map((x) => JSON.stringify(x)).join("\n") + "\n");
    const r = await runGym(["dataset", "render", "-i", "raw.jsonl", "--prompt-config", "p.yaml", "-o", "o.jsonl"], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("These are mutually exclusive. Use one or the other. Violating rows: [0, 2]");
    expect(existsSync(join(dir.path, "o.jsonl"))).toBe(false);
  });

  test("a template field the row lacks, a malformed line and missing keys are config errors that leave no output", async () => {
    await using dir = await tempDir();
    write(dir.path, "p.yaml", 'user: "{q} {nope}"\n');
    write(dir.path, "raw.jsonl", JSON.stringify({ q: "a" }) + "\n");
    const k = await runGym(["dataset", "render", "-i", "raw.jsonl", "--prompt-config", "p.yaml", "-o", "o.jsonl"], { cwd: dir.path });
    expect(k.code).toBe(2);
    expect(k.stderr).toContain("'nope'");
    expect(k.stderr).toContain("raw.jsonl:1");

    write(dir.path, "bad.jsonl", JSON.stringify({ q: "a" }) + "\n{oops\n");
    write(dir.path, "ok.yaml", 'user: "{q}"\n');
    const m = await runGym(["dataset", "render", "-i", "bad.jsonl", "--prompt-config", "ok.yaml", "-o", "o.jsonl"], { cwd: dir.path });
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("line 2");

    const missing = await runGym(["dataset", "render", "-i", "raw.jsonl"], { cwd: dir.path });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("prompt_config is required");
    expect(missing.stderr).toContain("output_jsonl_fpath is required");
    expect(missing.stderr).not.toContain("input_jsonl_fpath is required");
    expect(readdirSync(dir.path).sort()).toEqual(["bad.jsonl", "ok.yaml", "p.yaml", "raw.jsonl"]);
  });
});
