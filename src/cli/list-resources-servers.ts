/** `gym list resources-servers`: List resources servers, or inspect one. */
import { notImplemented } from "./_stub.ts";

/** The `gym list resources-servers` command. */
export default notImplemented("list resources-servers", "List resources servers, or inspect one", "Foundation");
