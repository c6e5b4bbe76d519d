/** `gym model serve`: Serve a built-in model as an OpenAI-compatible endpoint. */
import { notImplemented } from "./_stub.ts";

/** The `gym model serve` command. */
export default notImplemented("model serve", "Serve a built-in model as an OpenAI-compatible endpoint", "Server kinds");
