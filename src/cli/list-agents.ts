/** `gym list agents`: List agents, or inspect one. */
import { notImplemented } from "./_stub.ts";

/** The `gym list agents` command. */
export default notImplemented("list agents", "List agents, or inspect one", "Foundation");
