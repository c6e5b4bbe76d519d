/** `gym dataset download`: Download a dataset from Hugging Face (or GitLab) (components §4.2, §4.3). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { readEnv } from "../env.ts";
import { MlflowRegistry, mlflowHttp } from "../dataset/gitlab-mlflow.ts";
import { downloadFromGitlab, gitlabDownloadSpec } from "../dataset/gitlab-transfer.ts";
import { downloadFromHf, hfDownloadSpec } from "../dataset/hf-download.ts";
import { HubHttp } from "../dataset/hf-http.ts";
import { hfEndpoint } from "../dataset/hf-upload.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides } from "./_flags.ts";

/** The `gym dataset download` command. */
export default defineGymCommand({
  meta: { name: "download", description: "Download a dataset from Hugging Face (or GitLab)" },
  args: {
    storage: { type: "enum", options: ["hf", "gitlab"], default: "hf", description: "Where to download from: hf (default) or gitlab" },
    "repo-id": { type: "string", valueHint: "org/name", description: "Hugging Face dataset repo (+repo_id)" },
    name: { type: "string", valueHint: "name", description: "GitLab dataset name (+dataset_name)" },
    revision: { type: "string", valueHint: "x.x.x", description: "GitLab version (+version)" },
    artifact: { type: "string", valueHint: "path", description: "One raw file of the repo (+artifact_fpath)" },
    output: { type: "string", alias: "o", valueHint: "path", description: "Output file (+output_fpath)" },
    "output-dir": { type: "string", valueHint: "dir", description: "Output directory; splits are written as <split>.jsonl (+output_dirpath)" },
    split: { type: "enum", options: ["train", "validation", "test"], description: "Split to download (+split; default: every split, with --output-dir)" },
  },
  examples: [
    "gym dataset download --repo-id nvidia/Nemotron-RL-math-OpenMathReasoning --output-dir data/",
    "gym dataset download --repo-id nvidia/Nemotron-RL-math-OpenMathReasoning --artifact train.jsonl -o data/train.jsonl",
    "gym dataset download --storage gitlab --name example_multi_step --revision 0.0.1 --artifact train.jsonl -o data/train.jsonl",
  ],
  async run({ args: flags, data }) {
    const overrides = [
      ...flagsToOverrides(flags, [
        { flag: "repo-id", key: "repo_id" },
        // Quoted so that `--revision 1.0` or `--name 2024` stay strings.
        { flag: "name", key: "dataset_name", quoted: true },
        { flag: "revision", key: "version", quoted: true },
        { flag: "artifact", key: "artifact_fpath" },
        { flag: "output", key: "output_fpath" },
        { flag: "output-dir", key: "output_dirpath" },
        { flag: "split", key: "split" },
      ]),
      ...data.overrides,
    ];
    const resolved = await resolveGlobalConfig({ selectors: { configPaths: [], searchDirs: [] }, overrides, noModel: true });
    const keys = keysOf(resolved);
    let paths: string[];
    if (flags.storage === "gitlab") {
      const spec = gitlabDownloadSpec(keys);
      paths = [await downloadFromGitlab(spec, new MlflowRegistry(mlflowHttp(keys)))];
    } else {
      const spec = hfDownloadSpec(keys);
      paths = await downloadFromHf(spec, new HubHttp(hfEndpoint(keys, readEnv().hfEndpoint), keys.str("hf_token"), "Hugging Face", keys));
    }
    process.stdout.write(paths.map((p) => `${p}\n`).join(""));
    return 0;
  },
});
