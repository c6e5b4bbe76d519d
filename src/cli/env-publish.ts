/** `gym env publish`: Check a manifest for publication. */
import { notImplemented } from "./_stub.ts";

/** The `gym env publish` command. */
export default notImplemented("env publish", "Check a manifest for publication", "Runtime");
