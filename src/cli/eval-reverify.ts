/** `gym eval reverify`: Recompute rewards from stored rollouts. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval reverify` command. */
export default notImplemented("eval reverify", "Recompute rewards from stored rollouts", "Rollout driver");
