/** `gym eval submit`: Render and submit a Slurm job from a submit config. */
import { notImplemented } from "./_stub.ts";

/** The `gym eval submit` command. */
export default notImplemented("eval submit", "Render and submit a Slurm job from a submit config", "Submit");
