/** `gym dataset upload`: Upload a JSONL dataset to Hugging Face (or GitLab). */
import { notImplemented } from "./_stub.ts";

/** The `gym dataset upload` command. */
export default notImplemented("dataset upload", "Upload a JSONL dataset to Hugging Face (or GitLab)", "Rollout driver");
