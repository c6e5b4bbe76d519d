/**
 * Where commands run (spec submit.md §9.3): locally when `hostname` is unset or this host, else
 * over one SSH master connection. Programs go over stdin (`bash -s`), so secrets never touch disk.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { hostname as osHostname, tmpdir } from "node:os";
import { join } from "node:path";
import { RuntimeError } from "../errors.ts";

/** Result of one program. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A place to copy the staged tree to and run programs on. */
export interface Connection {
  /** null for local. */
  host: string | null;
  run(program: string, context: string, timeoutMs?: number): Promise<RunResult>;
  copyTree(localDir: string, remoteDir: string): Promise<void>;
  writeFile(path: string, text: string): Promise<void>;
  close(): Promise<void>;
}

const SSH_OPTS = ["-o", "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes"];

async function exec(argv: string[], stdin: string | undefined, timeoutMs: number): Promise<RunResult> {
  const proc = Bun.spawn(argv, { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGTERM"), timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

function failed(context: string, cmd: string, r: RunResult): RuntimeError {
  return new RuntimeError(`Command failed (${context}) with exit code ${r.code}:\n  ${cmd}\n${r.stderr.trim()}`, { code: "E_SUBMIT_COMMAND" });
}

/** True when `host` means this machine. */
export function isLocalHost(host: string | null): boolean {
  if (host === null || host === "") return true;
  const me = osHostname();
  return host === me || host === me.split(".")[0] || host === "localhost";
}

/** A connection running everything on this machine. */
export function localConnection(): Connection {
  return {
    host: null,
    run: (program, _context, timeoutMs = 600_000) => exec(["bash", "-s"], program, timeoutMs),
    async copyTree(localDir, remoteDir) {
      await rm(remoteDir, { recursive: true, force: true });
      await mkdir(remoteDir, { recursive: true });
      const r = await exec(["cp", "-a", `${localDir}/.`, remoteDir], undefined, 600_000);
      if (r.code !== 0) throw failed("copy", `cp -a ${localDir}/. ${remoteDir}`, r);
    },
    async writeFile(path, text) {
      await Bun.write(path, text);
    },
    async close() {},
  };
}

/**
 * Open an SSH master to `host` (waits ≤ 10 s for the control socket). `extraArgs` go before the
 * standard options on every ssh call (tests pass `-F <config>`; users configure ~/.ssh/config).
 */
export async function sshConnection(host: string, extraArgs: string[] = []): Promise<Connection> {
  const dir = mkdtempSync(join(tmpdir(), "gym-ssh-"));
  const sock = join(dir, "ctl");
  const base = [...extraArgs, ...SSH_OPTS];
  const master = Bun.spawn(["ssh", ...base, "-o", "ControlMaster=yes", "-o", `ControlPath=${sock}`, "-o", "ControlPersist=yes", "-N", host], { stdout: "ignore", stderr: "pipe" });
  const deadline = Date.now() + 10_000;
  while (!existsSync(sock)) {
    // With ControlPersist the first ssh forks the master into the background and exits 0.
    if (master.exitCode !== null && master.exitCode !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new RuntimeError(`SSH master to '${host}' exited with code ${master.exitCode}`, { code: "E_SUBMIT_SSH", hint: "check that `ssh " + host + "` works without a password prompt" });
    }
    if (Date.now() > deadline) {
      master.kill();
      rmSync(dir, { recursive: true, force: true });
      throw new RuntimeError(`SSH master to '${host}' did not produce a control socket within 10s`, { code: "E_SUBMIT_SSH" });
    }
    await Bun.sleep(100);
  }
  const opts = [...base, "-o", "ControlMaster=no", "-o", `ControlPath=${sock}`];
  return {
    host,
    run: (program, _context, timeoutMs = 600_000) => exec(["ssh", ...opts, host, "bash", "-s"], program, timeoutMs),
    async copyTree(localDir, remoteDir) {
      const mk = await exec(["ssh", ...opts, host, "mkdir", "-p", remoteDir], undefined, 120_000);
      if (mk.code !== 0) throw failed("mkdir", `ssh ${host} mkdir -p ${remoteDir}`, mk);
      const r = await exec(["rsync", "-az", "--delete", "-e", `ssh ${opts.join(" ")}`, `${localDir}/`, `${host}:${remoteDir}`], undefined, 1_800_000);
      if (r.code !== 0) throw failed("rsync", `rsync -az --delete ${localDir}/ ${host}:${remoteDir}`, r);
    },
    async writeFile(path, text) {
      const b64 = Buffer.from(text).toString("base64");
      const r = await exec(["ssh", ...opts, host, "bash", "-s"], `printf '%s' '${b64}' | base64 -d > '${path.replace(/'/g, `'"'"'`)}'\n`, 120_000);
      if (r.code !== 0) throw failed("write", `write ${path}`, r);
    },
    async close() {
      await exec(["ssh", ...opts, "-O", "exit", host], undefined, 10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
