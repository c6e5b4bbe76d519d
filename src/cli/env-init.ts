/** `gym env init`: Scaffold a resources server, environment or benchmark. */
import { notImplemented } from "./_stub.ts";

/** The `gym env init` command. */
export default notImplemented("env init", "Scaffold a resources server, environment or benchmark", "Runtime");
