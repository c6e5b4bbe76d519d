/** bunsenbench_chemistry_mcq: upstream's tests (resources_servers/bunsenbench_chemistry_mcq/tests/test_app.py) as data. */
import { describe, expect, test } from "bun:test";
import { verifyBunsen } from "../../src/components/resources/bunsenbench-chemistry-mcq.ts";
import { bunsenAnswer, errorMode, normalizeChemistryText } from "../../src/verify/choices/bunsen.ts";

const HC = [{ A: "H2O" }, { B: "CO2" }];
const AB = new Set(["A", "B"]);
const SMILES_A = "[START_SMILES]Cn1c(=O)c2c(nc(N3CCOCC3)n2CCCNC2=NCCC2)n(C)c1=O[END_SMILES]";
const SMILES_B = "[START_SMILES]O=C(N=S(=O)(CCCO)CCCO)c1cncc(C#Cc2cccc(NC(=O)c3cccc(C(F)(F)F)c3)c2)c1[END_SMILES]";

// [text, options, allowed, expected letter | undefined]
const EXTRACT: [string, Record<string, string>[], Set<string>, string | undefined][] = [
  ["Reasoning\nAnswer: B", HC, AB, "B"], ["Reasoning\n- Answer: B", HC, AB, "B"], ["Reasoning\n1. Answer: B", HC, AB, "B"],
  ["Reasoning sentence. Answer: B", HC, AB, "B"], ["B\n\nReasoning follows.", HC, AB, "B"], ["Final \\boxed{\\text{B}}", HC, AB, "B"],
  ["<answer>CO2</answer>", HC, AB, "B"], ["<choice>CO2</choice>", HC, AB, "B"], ["<response>CO₂</response>", HC, AB, "B"],
  ["The answer is B.", HC, AB, "B"], ["Final answer:\nCO2", HC, AB, "B"],
  ["Answer: A or B", HC, AB, undefined], ["I choose A and B", HC, AB, undefined], ["<choices><choice>H2O</choice><choice>CO2</choice></choices>", HC, AB, undefined],
  ["<answer>H2O</answer>\nReasoning\nAnswer: B", HC, AB, "B"],
  ["<answer>Na</answer>", [{ A: "Na" }, { B: "Ne" }, { C: "CO2" }], new Set("ABC"), "A"],
  ["<answer>na</answer>", [{ A: "Na" }, { B: "Ne" }, { C: "CO2" }], new Set("ABC"), undefined],
  ["<answer>CO₂</answer>", [{ A: "Na" }, { B: "Ne" }, { C: "CO2" }], new Set("ABC"), "C"],
  ["<answer>co₂</answer>", [{ A: "Na" }, { B: "Ne" }, { C: "CO2" }], new Set("ABC"), undefined],
  [`<choice>${SMILES_A}</choice>`, [{ A: SMILES_A }, { B: SMILES_B }], AB, "A"],
  [`<choice>${SMILES_B}</choice>`, [{ A: SMILES_A }, { B: SMILES_B }], AB, "B"],
];

const response = (text: string, extra: Record<string, unknown> = {}, refusal?: string) => ({
  id: "r", created_at: 0, model: "m", object: "response", parallel_tool_calls: true, tool_choice: "auto", tools: [], ...extra,
  output: [{ id: "m", type: "message", role: "assistant", status: (extra.itemStatus as string) ?? "completed", content: refusal ? [{ type: "refusal", refusal }] : [{ type: "output_text", text, annotations: [] }] }],
});

describe("bunsenbench extraction", () => {
  test.each(EXTRACT)("%p", (text, options, allowed, want) => {
    expect(bunsenAnswer(text, options, new Set(allowed))).toBe(want);
  });

  test.each([["CO₂", "CO2"], ["Na⁺", "Na+"], ["SO₄²⁻ + 2×H⁺", "SO42- + 2xH+"], ["ΔG = −10 kJ·mol⁻¹", "ΔG = -10 kJ.mol-1"], ["H&#8322;O &amp; CO&#x2082;", "H2O & CO2"]])("normalize %p", (t, want) => {
    expect(normalizeChemistryText(t)).toBe(want);
  });

  test.each([
    ["<choice>CO2</choice>", {}, undefined, "B", "correct"],
    ["<choice>H2O</choice>", {}, undefined, "A", "wrong_answer"],
    ["I'm sorry, but I can't help with that.", {}, undefined, undefined, "refusal"],
    ["", {}, "I cannot assist with this request.", undefined, "refusal"],
    ["<think>Let me reason about this step by step and consider", {}, undefined, undefined, "early_termination"],
    ["Some partial reasoning", { incomplete_details: { reason: "max_output_tokens" } }, undefined, undefined, "early_termination"],
    ["Some partial reasoning", { status: "incomplete" }, undefined, undefined, "early_termination"],
    ["<choice>none of the above</choice>", {}, undefined, undefined, "malformed_choice"],
    ["I think the answer relates to carbon but I'm not stating it in the required form.", {}, undefined, undefined, "format_violation"],
  ])("error mode of %p", (text, extra, refusal, pred, want) => {
    expect(errorMode(response(text, extra, refusal), text, pred, "B")).toBe(want as "correct");
  });

  test("verify keeps group metadata and flags no_answer", () => {
    const row = (text: string) => ({ responses_create_params: { input: [] }, response: response(text), options: HC, expected_answer: "B", metadata: { source: "example", bct_field: "general", bct_subfield: "acids_bases" } });
    expect(verifyBunsen(row("<choice>CO2</choice>"))).toMatchObject({ reward: 1, extracted_answer: "B", source: "example", bct_field: "general", bct_subfield: "acids_bases", error_mode: "correct", no_answer: false });
    expect(verifyBunsen(row("<choice>H2O</choice>"))).toMatchObject({ reward: 0, extracted_answer: "A", no_answer: false, error_mode: "wrong_answer" });
    expect(verifyBunsen(row("no idea"))).toMatchObject({ reward: 0, extracted_answer: null, no_answer: true });
  });
});
