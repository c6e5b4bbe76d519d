/** `gym env resolve`: Print the merged config. */
import { notImplemented } from "./_stub.ts";

/** The `gym env resolve` command. */
export default notImplemented("env resolve", "Print the merged config", "Runtime");
