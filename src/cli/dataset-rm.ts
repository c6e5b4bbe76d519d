/** `gym dataset rm`: Delete a dataset from GitLab, after a [y/N] confirmation (components §4.3). */
import { resolveGlobalConfig } from "../config/resolve.ts";
import { MlflowRegistry, mlflowHttp } from "../dataset/gitlab-mlflow.ts";
import { deleteFromGitlab } from "../dataset/gitlab-transfer.ts";
import { assertCanConfirm, processIO } from "../dataset/upload-confirm.ts";
import { keysOf } from "../dataset/upload-keys.ts";
import { defineGymCommand } from "./_command.ts";
import { flagsToOverrides } from "./_flags.ts";

/** The `gym dataset rm` command. */
export default defineGymCommand({
  meta: { name: "rm", description: "Delete a dataset from GitLab" },
  args: {
    name: { type: "string", valueHint: "name", description: "Registered dataset name, case-sensitive (+dataset_name)" },
    yes: { type: "boolean", description: "Delete without asking [y/N] (+yes=true); needed when stdin is not a terminal" },
  },
  examples: ["gym dataset rm --name old_dataset", "gym dataset rm --name old_dataset --yes"],
  async run({ args: flags, data }) {
    const overrides = [...flagsToOverrides(flags, [{ flag: "name", key: "dataset_name", quoted: true }, { flag: "yes", key: "yes" }]), ...data.overrides];
    const resolved = await resolveGlobalConfig({ selectors: { configPaths: [], searchDirs: [] }, overrides, noModel: true });
    const keys = keysOf(resolved);
    const name = keys.need("dataset_name", "pass --name NAME");
    const registry = new MlflowRegistry(mlflowHttp(keys));
    const yes = keys.bool("yes", false);
    const io = processIO();
    assertCanConfirm(yes, io, `'${name}' from GitLab`);
    await deleteFromGitlab(name, registry, { yes, io });
    return 0;
  },
});
