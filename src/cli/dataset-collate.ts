/** `gym dataset collate`: Collect, validate and merge the datasets of a config. */
import { notImplemented } from "./_stub.ts";

/** The `gym dataset collate` command. */
export default notImplemented("dataset collate", "Collect, validate and merge the datasets of a config", "Rollout driver");
