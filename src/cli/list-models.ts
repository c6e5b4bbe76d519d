/** `gym list models`: List model types, or inspect one. */
import { notImplemented } from "./_stub.ts";

/** The `gym list models` command. */
export default notImplemented("list models", "List model types, or inspect one", "Foundation");
