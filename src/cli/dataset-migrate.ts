/** `gym dataset migrate`: Move a dataset from GitLab to Hugging Face (upload, then always delete from GitLab). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { readEnv } from "../env.ts";
import { ConfigError } from "../errors.ts";
import { processIO } from "../dataset/upload-confirm.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { uploadMaybeDelete } from "../dataset/upload-migrate.ts";
import { defineGymCommand } from "./_command.ts";
import { uploadFlagOverrides } from "./_dataset-flags.ts";
import { flagsToOverrides } from "./_flags.ts";

/** Keys `gym dataset migrate` refuses (upstream's forbidden_fields). */
const FORBIDDEN = ["delete_from_gitlab"];

/** The `gym dataset migrate` command. */
export default defineGymCommand({
  meta: { name: "migrate", description: "Move a dataset from GitLab to Hugging Face" },
  args: {
    input: { type: "string", alias: "i", valueHint: "path", description: "JSONL file to upload (+input_jsonl_fpath)" },
    name: { type: "string", valueHint: "name", description: "Dataset name in GitLab, also used for the HF repo (+dataset_name)" },
    revision: { type: "string", valueHint: "rev", description: "HF branch to commit to (+revision)" },
    split: { type: "enum", options: ["train", "validation", "test"], description: "Split of the file (+split, default train)" },
    "create-pr": { type: "boolean", description: "Open a pull request instead of pushing (+create_pr=true)" },
    yes: { type: "boolean", description: "Delete from GitLab without asking [y/N] (+yes=true)" },
  },
  examples: ["gym dataset migrate -i data/train.jsonl --name my_dataset +resource_config_path=resources_servers/example_multi_step/configs/example_multi_step.yaml"],
  async run({ args: flags, data }) {
    const overrides = [
      ...flagsToOverrides(flags, uploadFlagOverrides({ version: false })),
      ...data.overrides,
    ];
    const resolved = await resolveGlobalConfig({ selectors: { configPaths: [], searchDirs: [] }, overrides, noModel: true });
    const keys = keysOf(resolved);
    const present = FORBIDDEN.filter((k) => keys.has(k));
    if (present.length > 0) {
      throw new ConfigError(`Forbidden fields present: {${present.map((k) => `'${k}'`).join(", ")}}`, {
        key: present[0],
        location: keys.where(present[0]!),
        hint: "`gym dataset migrate` always deletes from GitLab; drop the key (or use `gym dataset upload +delete_from_gitlab=true`)",
      });
    }
    const line = await uploadMaybeDelete(keys, { deleteFromGitlab: true, yes: keys.bool("yes", false), io: processIO(), envEndpoint: readEnv().hfEndpoint });
    process.stdout.write(`${line}\n`);
    return 0;
  },
});
