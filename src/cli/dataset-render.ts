/** `gym dataset render`: Render prompts into a JSONL dataset. */
import { notImplemented } from "./_stub.ts";

/** The `gym dataset render` command. */
export default notImplemented("dataset render", "Render prompts into a JSONL dataset", "Rollout driver");
