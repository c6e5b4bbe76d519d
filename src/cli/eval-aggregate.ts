/** `gym eval aggregate`: Aggregate metrics over rollout shards. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval aggregate` command. */
export default notImplemented("eval aggregate", "Aggregate metrics over rollout shards", "Rollout driver");
