/** `gym list benchmarks`: List benchmarks, or inspect one. */
import { notImplemented } from "./_stub.ts";

/** The `gym list benchmarks` command. */
export default notImplemented("list benchmarks", "List benchmarks, or inspect one", "Foundation");
