/**
 * Humanity's Last Exam (upstream benchmarks/hle/prepare.py): the gated `cais/hle` test split.
 * Text-only (config.yaml): rows with an image dropped, raw fields kept for the prompt config at
 * rollout time. Vision (config_vision.yaml, prepare_vision.py = `prepare(include_vision=True)`):
 * every row, `has_image`, and `responses_create_params.input` materialized from
 * benchmarks/hle/prompts/default.yaml, an image question's user turn becoming input_text +
 * input_image (a data URI, detail high). Both written with json.dumps' default ASCII escaping.
 */
import { join } from "node:path";
import { embeddedRoot } from "../assets/embedded.ts";
import { readParquet } from "../dataset/formats/parquet.ts";
import { applyPrompt, loadPromptConfig, type PromptConfig } from "../dataset/prompt.ts";
import { pyDumps } from "../util/py-json-dumps.ts";
import type { BenchmarkPreparer, SourceFile } from "./types.ts";

const SOURCE = { kind: "hf-parquet", repo: "cais/hle", config: "default", split: "test", gated: true } as const;

/** An HLE image field as an `image_url`: a data URI as is, a bare base64 payload as PNG. */
function dataUri(image: string): string {
  return image.startsWith("data:") ? image : `data:image/png;base64,${image}`;
}

/** The materialized input of one vision row (upstream `_build_input`). */
function visionInput(prompt: PromptConfig, question: unknown, image: unknown, where: string): unknown[] {
  const messages = (applyPrompt(prompt, { question }, where).responses_create_params as { input: { role: string; content: unknown }[] }).input;
  if (!image) return messages;
  const user = messages.find((m) => m.role === "user");
  if (user) user.content = [{ type: "input_text", text: user.content }, { type: "input_image", image_url: dataUri(String(image)), detail: "high" }];
  return messages;
}

async function rows(files: SourceFile[], each: (row: Record<string, unknown>, where: string) => string | undefined): Promise<string[]> {
  const lines: string[] = [];
  for (const file of files) {
    (await readParquet(file.bytes, file.name)).forEach((row, i) => {
      const line = each(row, `${file.name}: row ${i + 1}`);
      if (line !== undefined) lines.push(line);
    });
  }
  return lines;
}

/** The HLE (text-only) preparer. */
export const benchmark: BenchmarkPreparer = {
  name: "hle",
  server: "equivalence_llm_judge",
  sources: [SOURCE],
  prepare: (files) => rows(files[0]!, (row) => (row.image ? undefined : pyDumps({ question: row.question, expected_answer: row.answer, answer_type: row.answer_type, uuid: row.id }))),
};

/** The HLE vision preparer (registered as `hle/prepare_vision`; its sources live under `hle/` like the text-only one's). */
export const visionBenchmark: BenchmarkPreparer = {
  name: "hle",
  server: "equivalence_llm_judge",
  sources: [SOURCE],
  async prepare(files) {
    const root = await embeddedRoot();
    const prompt = loadPromptConfig(join(root, "benchmarks/hle/prompts/default.yaml"), [root]);
    return rows(files[0]!, (row, where) =>
      pyDumps({
        question: row.question,
        expected_answer: row.answer,
        answer_type: row.answer_type,
        uuid: row.id,
        has_image: Boolean(row.image),
        responses_create_params: { input: visionInput(prompt, row.question, row.image, where) },
      }),
    );
  },
};
