/** `gym dev test`: Run the test suite. */
import { notImplemented } from "./_stub.ts";

/** The `gym dev test` command. */
export default notImplemented("dev test", "Run the test suite", "Foundation");
