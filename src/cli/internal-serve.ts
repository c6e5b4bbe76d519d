/** `gym internal serve`: run one server instance from NEMO_GYM_CONFIG_DICT / NEMO_GYM_CONFIG_PATH. */
import { notImplemented } from "./_stub.ts";

/** The child-process entry of one server. */
export default notImplemented("internal serve", "Run one server instance (child process entry)", "Runtime");
