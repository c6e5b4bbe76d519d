/** `gym env start`: Start the head server and every server of a config. */
import { notImplemented } from "./_stub.ts";

/** The `gym env start` command. */
export default notImplemented("env start", "Start the head server and every server of a config", "Runtime");
