/** `gym env prefetch`: Prepare servers without starting them. */
import { notImplemented } from "./_stub.ts";

/** The `gym env prefetch` command. */
export default notImplemented("env prefetch", "Prepare servers without starting them", "Runtime");
