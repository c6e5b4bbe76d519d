/** `gym dataset rm`: Delete a dataset from GitLab. */
import { notImplemented } from "./_stub.ts";

/** The `gym dataset rm` command. */
export default notImplemented("dataset rm", "Delete a dataset from GitLab", "Rollout driver");
