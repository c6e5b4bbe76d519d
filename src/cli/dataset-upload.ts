/** `gym dataset upload`: Upload a JSONL dataset to Hugging Face (or GitLab) (components §4.2, §4.3). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { readEnv } from "../env.ts";
import { MlflowRegistry, mlflowHttp } from "../dataset/gitlab-mlflow.ts";
import { gitlabUploadSpec, uploadToGitlab } from "../dataset/gitlab-transfer.ts";
import { processIO } from "../dataset/upload-confirm.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { uploadMaybeDelete } from "../dataset/upload-migrate.ts";
import { defineGymCommand } from "./_command.ts";
import { uploadFlagOverrides } from "./_dataset-flags.ts";
import { flagsToOverrides } from "./_flags.ts";

/** The `gym dataset upload` command. */
export default defineGymCommand({
  meta: { name: "upload", description: "Upload a JSONL dataset to Hugging Face (or GitLab)" },
  args: {
    storage: { type: "enum", options: ["hf", "gitlab"], default: "hf", description: "Where to upload: hf (default) or gitlab" },
    input: { type: "string", alias: "i", valueHint: "path", description: "JSONL file to upload (+input_jsonl_fpath)" },
    name: { type: "string", valueHint: "name", description: "Dataset name (+dataset_name; HF default: the resources server's folder)" },
    revision: { type: "string", valueHint: "rev", description: "HF branch to commit to (+revision); GitLab version x.x.x (+version)" },
    split: { type: "enum", options: ["train", "validation", "test"], description: "Split of the file (+split, default train: every row needs responses_create_params)" },
    "create-pr": { type: "boolean", description: "Open a pull request instead of pushing (+create_pr=true)" },
    yes: { type: "boolean", description: "With +delete_from_gitlab=true: delete without asking [y/N] (+yes=true)" },
  },
  examples: [
    "gym dataset upload -i data/train.jsonl --name my_dataset +resource_config_path=resources_servers/example_multi_step/configs/example_multi_step.yaml",
    "gym dataset upload --storage gitlab -i data/train.jsonl --name example_multi_step --revision 0.0.1",
  ],
  async run({ args: flags, data }) {
    const overrides = [
      ...flagsToOverrides(flags, uploadFlagOverrides({ version: true })),
      ...data.overrides,
    ];
    const resolved = await resolveGlobalConfig({ selectors: { configPaths: [], searchDirs: [] }, overrides, noModel: true });
    const keys = keysOf(resolved);
    if (flags.storage === "gitlab") {
      const spec = gitlabUploadSpec(keys);
      const hint = await uploadToGitlab(spec, new MlflowRegistry(mlflowHttp(keys)));
      process.stdout.write(`${hint}\n`);
      return 0;
    }
    const line = await uploadMaybeDelete(keys, {
      deleteFromGitlab: keys.bool("delete_from_gitlab", false),
      yes: keys.bool("yes", false),
      io: processIO(),
      envEndpoint: readEnv().hfEndpoint,
    });
    process.stdout.write(`${line}\n`);
    return 0;
  },
});
