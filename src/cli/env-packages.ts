/** `gym env packages`: List the Python packages of an external server. */
import { notImplemented } from "./_stub.ts";

/** The `gym env packages` command. */
export default notImplemented("env packages", "List the Python packages of an external server", "Runtime");
