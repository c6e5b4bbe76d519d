/**
 * Raise the soft open-files limit (runtime.md §5 step 9, spec default): every pooled connection
 * and every accepted socket is a file descriptor, and 1024 is a common soft default. Raised to
 * 65535 or the hard limit, whichever is lower; best effort (no libc found → unchanged).
 */
import { log } from "../../log.ts";

const RLIMIT_NOFILE = 7; // Linux
const TARGET = 65_535n;

/** The soft and hard limits after the attempt, or undefined when they cannot be read here. */
export function raiseFdLimit(): { soft: number; hard: number } | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    // Loaded lazily: bun:ffi is only needed in server processes.
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    let lib: ReturnType<typeof open> | undefined;
    function open(path: string) {
      return dlopen(path, {
        getrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
        setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      });
    }
    for (const path of ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"]) {
      try {
        lib = open(path);
        break;
      } catch {
        // Try the next name.
      }
    }
    if (!lib) return undefined;
    const buf = new BigUint64Array(2);
    if (lib.symbols.getrlimit(RLIMIT_NOFILE, ptr(buf)) !== 0) return undefined;
    const hard = buf[1]!;
    const want = hard < TARGET ? hard : TARGET;
    if (buf[0]! < want) {
      buf[0] = want;
      if (lib.symbols.setrlimit(RLIMIT_NOFILE, ptr(buf)) !== 0) log.debug("could not raise the open-files limit");
      lib.symbols.getrlimit(RLIMIT_NOFILE, ptr(buf));
    }
    const out = { soft: Number(buf[0]!), hard: Number(buf[1]!) };
    lib.close();
    return out;
  } catch (err) {
    log.debug("open-files limit unchanged:", err);
    return undefined;
  }
}
