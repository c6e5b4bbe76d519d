/** `gym env test`: Test resources servers. */
import { notImplemented } from "./_stub.ts";

/** The `gym env test` command. */
export default notImplemented("env test", "Test resources servers", "Runtime");
