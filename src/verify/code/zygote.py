# gym's code zygote (appended to driver.py; one per CodeRunner, inside the sandbox wrapper).
#
# A warm interpreter (the header's modules already imported) that forks one child per job, so a test run
# costs a fork instead of a Python start-up. Protocol, one JSON object per line:
#   in  (stdin):  {"id": n, "code", "inputs", "outputs", "fn_name", "timeout", "budget", "memory_bytes",
#                  "file_bytes", "cpu_seconds", "tmp"}
#   out (stdout): {"id": n, "result": [...], "metadata": {...}} | {"id": n, "killed": true} | {"id": n, "died": true}
#   evalplus jobs ("kind": "evalplus", evalplus.py) answer their own fields; every answer carries "progress",
#   the "1"/"0" bytes a child wrote before its JSON (kept when it is killed). "answer_cap" raises the 8 MiB cap.
# Each child gets its own session (the group is killed at the job's budget), its own fresh directory under
# `tmp` (removed when it ends), and an answer pipe read here.
import selectors
import shutil
import tempfile

for _m in PLAIN_IMPORTS:
    __import__(_m)  # warm: every child inherits the header's modules
import typing  # noqa: F401  (star-imported by the header too)


def serve():
    sel = selectors.DefaultSelector()
    stdin = sys.stdin.buffer
    out = sys.stdout
    running = {}  # pid -> {id, fd, chunks, size, deadline, dir}
    pending_line = b""
    sel.register(stdin.fileno(), selectors.EVENT_READ, "stdin")
    cap = 8 * 1024 * 1024
    open_input = True

    def reply(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    def start(job):
        workdir = tempfile.mkdtemp(prefix="gym-code-", dir=job["tmp"])
        job["workdir"] = workdir
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                # Nothing of the zygote's stays open in the child (other jobs' answer pipes, the selector).
                os.closerange(3, w)
                os.closerange(w + 1, 65536)
                os.setsid()
                os.chdir(workdir)
                run_job(job, w)
            finally:
                os._exit(0)
        os.close(w)
        running[pid] = {"id": job["id"], "fd": r, "chunks": [], "size": 0, "deadline": time.monotonic() + job["budget"], "dir": workdir, "killed": False,
                        "cap": job.get("answer_cap", cap)}
        sel.register(r, selectors.EVENT_READ, pid)

    def finish(pid, status):
        job = running.pop(pid)
        try:
            sel.unregister(job["fd"])
        except (KeyError, ValueError):
            pass
        while True:  # drain what the child wrote before it ended
            try:
                chunk = os.read(job["fd"], 65536)
            except OSError:
                break
            if not chunk:
                break
            job["chunks"].append(chunk)
        os.close(job["fd"])
        shutil.rmtree(job["dir"], ignore_errors=True)
        raw = b"".join(job["chunks"])
        # Progress bytes ("1"/"0" per finished test, evalplus jobs) come before the JSON answer.
        body = raw.lstrip(b"01")
        progress = raw[: len(raw) - len(body)].decode("ascii")
        if job["killed"]:
            return reply({"id": job["id"], "killed": True, "progress": progress})
        try:
            answer = json.loads(body.decode("utf-8"))
            answer["id"] = job["id"]
            answer["progress"] = progress
            reply(answer)
        except Exception:
            reply({"id": job["id"], "died": True, "status": status, "progress": progress})

    while open_input or running:
        now = time.monotonic()
        timeout = min([j["deadline"] for j in running.values()], default=now + 1.0) - now
        for key, _ in sel.select(timeout=max(0.0, min(timeout, 0.25))):
            if key.data == "stdin":
                chunk = os.read(stdin.fileno(), 1 << 20)
                if not chunk:
                    open_input = False
                    sel.unregister(stdin.fileno())
                    continue
                pending_line += chunk
                while b"\n" in pending_line:
                    line, pending_line = pending_line.split(b"\n", 1)
                    if line.strip():
                        start(json.loads(line))
            else:
                job = running.get(key.data)
                if job is None:
                    continue
                chunk = os.read(job["fd"], 65536)
                if chunk:
                    job["chunks"].append(chunk)
                    job["size"] += len(chunk)
                    if job["size"] > job["cap"] and not job["killed"]:
                        job["killed"] = True
                        try:
                            os.killpg(key.data, signal.SIGKILL)
                        except OSError:
                            pass
                else:
                    sel.unregister(job["fd"])
        now = time.monotonic()
        for pid, job in list(running.items()):
            if now > job["deadline"] and not job["killed"]:
                job["killed"] = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in running:
                finish(pid, status)


serve()
