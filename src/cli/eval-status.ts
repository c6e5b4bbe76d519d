/** `gym eval status`: Show the state of a submitted run. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval status` command. */
export default notImplemented("eval status", "Show the state of a submitted run", "Submit");
