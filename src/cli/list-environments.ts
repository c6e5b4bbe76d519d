/** `gym list environments`: List environments, or inspect one. */
import { notImplemented } from "./_stub.ts";

/** The `gym list environments` command. */
export default notImplemented("list environments", "List environments, or inspect one", "Foundation");
