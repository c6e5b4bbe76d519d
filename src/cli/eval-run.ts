/** `gym eval run`: Collect rewarded rollouts from a JSONL dataset. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval run` command. */
export default notImplemented("eval run", "Collect rewarded rollouts from a JSONL dataset", "Rollout driver");
