/** `gym eval profile`: Reward profile of stored rollouts. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval profile` command. */
export default notImplemented("eval profile", "Reward profile of stored rollouts", "Rollout driver");
