/**
 * Benchmarks whose upstream preparation gym does not reproduce, each with what it needs: a
 * `gym eval prepare` of one stops with that message (a ConfigError) before anything is fetched.
 */
import type { BenchmarkPreparer } from "./types.ts";

const NEMOTRON_SUPER = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16";

function outside(name: string, server: string, unsupported: string): BenchmarkPreparer {
  return {
    name,
    server,
    unsupported,
    sources: [],
    prepare() {
      throw new Error(`${name}: an unsupported preparer was asked to prepare`);
    },
  };
}

/** bunsenbench_chemistry_mcq: its rows are rebuilt by the dataset's own Python tool from third-party datasets. */
export const bunsenbench = outside(
  "bunsenbench_chemistry_mcq",
  "bunsenbench_chemistry_mcq",
  "its rows are reconstituted by the Python tool tools/reconstitute.py of the Hub dataset nvidia/bunsen-bench (revision v0.1.4), which loads each source dataset with the `datasets` library; " +
    "run upstream's benchmarks/bunsenbench_chemistry_mcq/prepare.py (a NeMo Gym checkout as a search root, with `datasets` and `huggingface_hub` installed, runs it under Python)",
);

/** The N3 1M-context variants: token counts (and the 1,048,576-token filter) by a gated Hugging Face tokenizer. */
function n3(bench: string): BenchmarkPreparer {
  return outside(
    bench,
    "mcqa",
    `its token counts and 1,048,576-token filter use the gated Hugging Face tokenizer ${NEMOTRON_SUPER} through Python's \`transformers\`, which gym does not embed; ` +
      `accept the model's terms on the Hub and run upstream's benchmarks/${bench}/prepare_n3_1m.py with HF_TOKEN set (or use the default variant, --benchmark ${bench}, counted with o200k_base)`,
  );
}

/** longbench_v2's N3 1M variant. */
export const longbenchV2N3 = n3("longbench_v2");
/** longcodebench's N3 1M variant. */
export const longcodebenchN3 = n3("longcodebench");
