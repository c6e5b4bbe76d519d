/** `gym eval prepare`: Prepare benchmark data. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval prepare` command. */
export default notImplemented("eval prepare", "Prepare benchmark data", "Rollout driver");
