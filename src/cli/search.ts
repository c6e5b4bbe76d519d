/** `gym search [TYPE] QUERY`: search the component catalog. */
import { notImplemented } from "./_stub.ts";

/** The `gym search` command. */
export default notImplemented("search", "Search components by name, domain or description", "Foundation");
