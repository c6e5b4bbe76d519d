/** `gym env validate`: Validate a config or a manifest. */
import { notImplemented } from "./_stub.ts";

/** The `gym env validate` command. */
export default notImplemented("env validate", "Validate a config or a manifest", "Runtime");
