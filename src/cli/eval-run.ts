/** `gym eval run`: Collect rewarded rollouts from a JSONL dataset (runtime §11, cli-config §2.4). */
import { defineGymCommand, type GymArgDef } from "./_command.ts";
import { flagsToOverrides, policyFlags, policyOverrides, selectorFlags, type FlagOverride } from "./_flags.ts";

const args: Record<string, GymArgDef> = {
  ...selectorFlags,
  "no-serve": { type: "boolean", description: "Collect against servers already running (found through the head server)" },
  resume: { type: "boolean", description: "Resume an interrupted run (+resume_from_cache=true)" },
  overwrite: { type: "boolean", description: "Start over, replacing earlier results at the output path (+overwrite_output=true)" },
  agent: { type: "string", alias: "a", valueHint: "name", description: "Send every row to this agent (+agent_name)" },
  input: { type: "string", alias: "i", valueHint: "path", description: "Input JSONL (+input_jsonl_fpath)" },
  output: { type: "string", alias: "o", valueHint: "path", description: "Output rollouts JSONL (+output_jsonl_fpath)" },
  limit: { type: "string", valueHint: "n", description: "Use only the first n input rows (+limit)" },
  "num-repeats": { type: "string", valueHint: "n|{agent: n, _default: n}", description: "Rollouts per task (+num_repeats)" },
  "prompt-config": { type: "string", valueHint: "path", description: "Build the input from a prompt template (+prompt_config)" },
  concurrency: { type: "string", valueHint: "n", description: "Rollouts in flight at once (+num_samples_in_parallel)" },
  split: { type: "string", valueHint: "train|validation|benchmark|example", description: "Dataset split to prepare in serve mode (+split)" },
  ...policyFlags,
  temperature: { type: "string", valueHint: "t", description: "+responses_create_params.temperature" },
  "top-p": { type: "string", valueHint: "p", description: "+responses_create_params.top_p" },
  "max-output-tokens": { type: "string", valueHint: "n", description: "+responses_create_params.max_output_tokens" },
  "disable-aggregation": { type: "boolean", description: "Skip /aggregate_metrics (for shards; run `gym eval aggregate` later)" },
  "status-port": { type: "string", valueHint: "port", description: "Serve GET /status on 127.0.0.1:PORT (+status_port)" },
};

const table: FlagOverride[] = [
  { flag: "resume", key: "resume_from_cache" },
  { flag: "overwrite", key: "overwrite_output" },
  { flag: "agent", key: "agent_name" },
  { flag: "input", key: "input_jsonl_fpath" },
  { flag: "output", key: "output_jsonl_fpath" },
  { flag: "limit", key: "limit" },
  { flag: "num-repeats", key: "num_repeats" },
  { flag: "prompt-config", key: "prompt_config" },
  { flag: "concurrency", key: "num_samples_in_parallel" },
  { flag: "split", key: "split" },
  ...policyOverrides,
  { flag: "temperature", key: "responses_create_params.temperature" },
  { flag: "top-p", key: "responses_create_params.top_p" },
  { flag: "max-output-tokens", key: "responses_create_params.max_output_tokens" },
  { flag: "disable-aggregation", key: "disable_aggregation" },
  { flag: "status-port", key: "status_port" },
];

/** The `gym eval run` command. */
export default defineGymCommand({
  meta: { name: "run", description: "Collect rewarded rollouts from a JSONL dataset" },
  args,
  examples: [
    "gym eval run --no-serve -i data/example.jsonl -o results/rollouts.jsonl --num-repeats 4 --concurrency 64",
    "gym eval run --resources-server example_multi_step --model-type openai_model --split example -o results/rollouts.jsonl -m my-model --model-url http://localhost:8000/v1",
    "gym eval run --benchmark gsm8k --model-type vllm_model -m my-model --model-url http://localhost:8000/v1",
    "gym eval run --no-serve -i in.jsonl -o out.jsonl --resume",
  ],
  async run({ args: flags, data }) {
    // The use case's modules load here, not at start: `gym eval run --help` reads only this file.
    const { runEvalCommand } = await import("./_eval-run-exec.ts");
    return runEvalCommand(flags, [...flagsToOverrides(flags, table), ...data.overrides]);
  },
});
