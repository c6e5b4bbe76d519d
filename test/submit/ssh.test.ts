/**
 * The SSH connection (spec submit.md §9.3) against a real sshd on loopback started by this test:
 * master socket, programs over stdin, rsync copy with modes, file writes, close. With Slurm present
 * it also submits a real job over SSH. Skipped (with a note) when sshd, rsync or ssh-keygen is absent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stageRun } from "../../src/submit/stage.ts";
import { linkStagedBinary } from "../../src/submit/binary-cache.ts";
import { sshConnection } from "../../src/submit/ssh.ts";
import { runSubmit } from "../../src/submit/submit.ts";
import { tempDir, type TempDir } from "../helpers/tmp.ts";

const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((p) => existsSync(p));
const READY = SSHD !== undefined && Bun.which("rsync") !== null && Bun.which("ssh-keygen") !== null && Bun.which("ssh") !== null;
if (!READY) console.warn("note: sshd/rsync/ssh-keygen not found; skipping the SSH submit tests (apt-get install openssh-server rsync)");

const HOST = "gym-ssh-test";

describe.skipIf(!READY)("SSH connection against a loopback sshd", () => {
  let dir: TempDir;
  let sshd: ReturnType<typeof Bun.spawn> | undefined;
  let cfg = "";

  beforeAll(async () => {
    dir = await tempDir("gym-ssh-");
    const d = dir.path;
    for (const k of ["hostkey", "id"]) Bun.spawnSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", join(d, k)]);
    writeFileSync(join(d, "authorized_keys"), readFileSync(join(d, "id.pub")));
    mkdirSync("/run/sshd", { recursive: true });
    // Some sandboxes refuse binds on ports that look free; pick a free one and retry on failure.
    for (let attempt = 0; attempt < 10 && cfg === ""; attempt++) {
      const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
      const port = probe.port;
      probe.stop(true);
      writeFileSync(
        join(d, "sshd_config"),
        [`Port ${port}`, "ListenAddress 127.0.0.1", `HostKey ${d}/hostkey`, `AuthorizedKeysFile ${d}/authorized_keys`, `PidFile ${d}/sshd.pid`,
          "StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", ""].join("\n"),
      );
      writeFileSync(
        join(d, "ssh_config"),
        [`Host ${HOST}`, "  HostName 127.0.0.1", `  Port ${port}`, `  IdentityFile ${d}/id`, "  IdentitiesOnly yes", `  UserKnownHostsFile ${d}/known_hosts`, ""].join("\n"),
      );
      const proc = Bun.spawn([SSHD!, "-D", "-e", "-f", join(d, "sshd_config")], { stdout: "ignore", stderr: "ignore" });
      for (let i = 0; i < 25; i++) {
        await Bun.sleep(200);
        if (proc.exitCode !== null) break;
        const p = Bun.spawnSync(["ssh", "-F", join(d, "ssh_config"), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new", "-o", "ConnectTimeout=2", HOST, "true"]);
        if (p.exitCode === 0) {
          sshd = proc;
          cfg = join(d, "ssh_config");
          break;
        }
      }
      if (cfg === "") {
        proc.kill();
        await proc.exited;
      }
    }
    if (cfg === "") throw new Error("could not start a loopback sshd");
  }, 30_000);

  afterAll(async () => {
    if (sshd) {
      sshd.kill("SIGTERM");
      await sshd.exited;
    }
    await dir[Symbol.asyncDispose]();
  });

  test("master, run over stdin, rsync copy keeps modes, write, close", async () => {
    const conn = await sshConnection(HOST, ["-F", cfg]);
    try {
      const r = await conn.run('echo "ok:$((1 + 2))"\nexit 3\n', "test");
      expect(r).toEqual({ code: 3, stdout: "ok:3\n", stderr: "" });
      const staging = stageRun([{ name: "b", script: "#!/bin/bash\necho hi\n", collectorYaml: null }]);
      const remote = join(dir.path, "remote", "run");
      await conn.copyTree(staging, remote);
      expect(statSync(join(remote, "b", "job.sh")).mode & 0o777).toBe(0o600);
      // The binary goes to the content-addressed cache once and is linked into each run dir.
      const first = await linkStagedBinary(conn, join(dir.path, "remote"), remote);
      expect(first.copied).toBe(true);
      expect(statSync(join(remote, "gym")).mode & 0o777).toBe(0o755);
      const other = join(dir.path, "remote", "run2");
      await conn.copyTree(staging, other);
      expect((await linkStagedBinary(conn, join(dir.path, "remote"), other)).copied).toBe(false);
      expect(readFileSync(join(other, "gym"), "utf8")).toBe(readFileSync(first.path, "utf8"));
      expect(statSync(join(remote, "b", "logs")).isDirectory()).toBe(true);
      await conn.writeFile(join(remote, "it's.json"), '{"a": "b\'c"}\n');
      expect(readFileSync(join(remote, "it's.json"), "utf8")).toBe('{"a": "b\'c"}\n');
    } finally {
      await conn.close();
    }
  }, 60_000);

  test("a failing master names the host", async () => {
    await expect(sshConnection("gym-no-such-host.invalid", ["-F", cfg, "-o", "ConnectTimeout=3"])).rejects.toThrow("SSH master to 'gym-no-such-host.invalid'");
  }, 30_000);

  test.skipIf(Bun.which("sinfo") === null)(
    "a real submit over SSH: staged by rsync, queued by sbatch on the far side, forward_env over stdin",
    async () => {
      const d = dir.path;
      writeFileSync(
        join(d, "ssh-submit.yaml"),
        `services: {}
compute:
  cluster: {type: slurm, account: t, hostname: ${HOST}, container_runtime: none, forward_env: [GYM_SSH_FWD]}
driver:
  env: {F: "runtime:GYM_SSH_FWD"}
  benchmarks:
    echo: {command: 'printf %s "$F" | sha256sum | cut -c1-64 > "$NEMO_GYM_BENCH_DIR/artifacts/f.txt"'}
job: {output_path: ${d}/ssh-runs}
otel: {enabled: false}
`,
      );
      process.env.GYM_SSH_FWD = "ssh-fwd-secret-81";
      let out = "";
      try {
        const code = await runSubmit({
          configPath: join(d, "ssh-submit.yaml"), overrides: [], dryRun: false, resolveOnly: false, json: true,
          out: (t) => { out += t; }, warn: () => {}, connect: (h) => sshConnection(h, ["-F", cfg]),
        });
        expect(code).toBe(0);
      } finally {
        delete process.env.GYM_SSH_FWD;
      }
      const rec = JSON.parse(out);
      expect(rec.hostname).toBe(HOST);
      const id = rec.benchmarks[0].job_id as string;
      expect(id).toMatch(/^\d+$/);
      for (let i = 0; i < 60; i++) {
        if (Bun.spawnSync(["squeue", "-h", "-j", id], { stdout: "pipe" }).stdout.toString().trim() === "") break;
        await Bun.sleep(1000);
      }
      Bun.spawnSync(["scancel", id]);
      const sha = new Bun.CryptoHasher("sha256").update("ssh-fwd-secret-81").digest("hex");
      expect(readFileSync(join(rec.run_dir, "echo", "artifacts", "f.txt"), "utf8")).toBe(`${sha}\n`);
      expect(JSON.parse(readFileSync(join(rec.run_dir, "gym-job.json"), "utf8")).gym_job_id).toBe(rec.gym_job_id);
      expect(readFileSync(join(rec.run_dir, "resolved-config.yaml"), "utf8")).toContain(`hostname: ${HOST}`);
    },
    90_000,
  );
});
