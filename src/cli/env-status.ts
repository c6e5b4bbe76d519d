/** `gym env status`: Show the servers of a running environment. */
import { notImplemented } from "./_stub.ts";

/** The `gym env status` command. */
export default notImplemented("env status", "Show the servers of a running environment", "Runtime");
