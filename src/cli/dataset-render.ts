/** `gym dataset render`: Render prompts into a JSONL dataset (components §6, upstream `ng_materialize_prompts`). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { ConfigError, ConfigErrors } from "../errors.ts";
import { log } from "../log.ts";
import { renderPrompts } from "../dataset/render.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides, selectorArgs, selectorFlags } from "./_flags.ts";

/** The `gym dataset render` command. */
export default defineGymCommand({
  meta: { name: "render", description: "Render prompts into a JSONL dataset" },
  args: {
    input: { type: "string", alias: "i", valueHint: "path", description: "Raw JSONL rows, without responses_create_params.input (+input_jsonl_fpath)" },
    "prompt-config": { type: "string", valueHint: "path", description: "Prompt YAML {user, system?} (+prompt_config)" },
    output: { type: "string", alias: "o", valueHint: "path", description: "Rendered JSONL (+output_jsonl_fpath)" },
    "search-dir": selectorFlags["search-dir"]!,
  },
  examples: ["gym dataset render -i data/raw.jsonl --prompt-config prompts/math.yaml -o data/rendered.jsonl"],
  async run({ args: flags, data }) {
    const overrides = [
      ...flagsToOverrides(flags, [
        { flag: "input", key: "input_jsonl_fpath" },
        { flag: "prompt-config", key: "prompt_config" },
        { flag: "output", key: "output_jsonl_fpath" },
      ]),
      ...data.overrides,
    ];
    const resolved = await resolveGlobalConfig({ selectors: selectorArgs(flags), overrides, noModel: true });
    const keys = keysOf(resolved);
    const required: [string, string][] = [["input_jsonl_fpath", "-i/--input PATH"], ["prompt_config", "--prompt-config PATH"], ["output_jsonl_fpath", "-o/--output PATH"]];
    const missing = required.filter(([k]) => keys.str(k) === undefined).map(([k, flag]) => new ConfigError(`${k} is required (pass ${flag})`, { key: k }));
    if (missing.length > 0) throw new ConfigErrors("gym dataset render: missing required keys", missing);
    const [input, prompt, output] = required.map(([k]) => keys.str(k)!) as [string, string, string];
    const r = await renderPrompts(input, prompt, output, resolved.roots);
    log.info(`Materialized ${r.rows} rows to ${r.output}`);
    process.stdout.write(`${r.output}\n`);
    return 0;
  },
});
