/**
 * Finding the host `python3` (D27) and what isolation this machine allows, once per process: the real
 * interpreter path (a pyenv/asdf shim would add a shell script to every run), and whether unprivileged
 * namespaces work (`unshare --user --net --pid`: no network, and every process of a run dies with it).
 */
import { GymError } from "../../errors.ts";

/** How candidate programs are started on this machine. */
export interface PythonHost {
  /** Absolute path of the interpreter. */
  python: string;
  /** argv prefix that isolates a run (unshare), or that only makes it a process group (setsid). */
  wrapper: string[];
  /** True when runs have no network and a private PID namespace. */
  isolated: boolean;
}

/** No python3 on PATH: code verification cannot run (a `verifier` failure per row, never reward 0). */
export class PythonMissingError extends GymError {
  constructor(detail: string) {
    super(`code execution needs python3 on PATH, and none was found (${detail})`, {
      code: "E_NO_PYTHON",
      hint: "install Python 3.8+ on the node that runs this resources server (e.g. apt-get install python3), or put it on PATH",
    });
    this.name = "PythonMissingError";
  }
}

const UNSHARE = ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child"];

async function probe(argv: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const p = Bun.spawn(argv, { stdout: "pipe", stderr: "ignore", stdin: "ignore", env: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    const timer = setTimeout(() => p.kill(9), 10_000);
    const out = await new Response(p.stdout).text();
    clearTimeout(timer);
    return { ok: (await p.exited) === 0, out: out.trim() };
  } catch {
    return { ok: false, out: "" };
  }
}

const cache = new Map<string, Promise<PythonHost>>();

/** The python3 this process runs programs with (probed once); rejects with PythonMissingError. */
export function pythonHost(pathEnv: string | undefined): Promise<PythonHost> {
  const key = pathEnv ?? "";
  const hit = cache.get(key);
  if (hit) return hit;
  const p = (async () => {
    const found = Bun.which("python3", { PATH: pathEnv ?? "" });
    if (!found) throw new PythonMissingError(`PATH=${pathEnv ?? ""}`);
    const exe = await probe([found, "-c", "import sys; print(sys.executable)"]);
    if (!exe.ok || exe.out === "") throw new PythonMissingError(`${found} did not start`);
    const ns = await probe([...UNSHARE, exe.out, "-I", "-c", "pass"]);
    if (ns.ok) return { python: exe.out, wrapper: UNSHARE, isolated: true };
    const setsid = Bun.which("setsid", { PATH: "/usr/local/bin:/usr/bin:/bin" });
    return { python: exe.out, wrapper: setsid ? [setsid] : [], isolated: false };
  })();
  cache.set(key, p);
  p.catch(() => cache.delete(key)); // a later call may find python3 after an install
  return p;
}
