/** `gym dataset migrate`: Move a dataset from GitLab to Hugging Face. */
import { notImplemented } from "./_stub.ts";

/** The `gym dataset migrate` command. */
export default notImplemented("dataset migrate", "Move a dataset from GitLab to Hugging Face", "Rollout driver");
