/** `gym dataset download`: Download a dataset from Hugging Face (or GitLab). */
import { notImplemented } from "./_stub.ts";

/** The `gym dataset download` command. */
export default notImplemented("dataset download", "Download a dataset from Hugging Face (or GitLab)", "Rollout driver");
