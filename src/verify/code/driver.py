# gym's code driver (embedded in the gym binary; run as `python3 -I -c <this file + zygote.py>`).
#
# Runs ONE model-written program against its tests inside the sandboxed child that gym started, with the
# semantics of LiveCodeBench's runner that upstream NeMo Gym's code_gen uses, so verdicts match upstream:
#   * stdio programs are wrapped into a function (imports hoisted, a trailing `if __name__ == '__main__':`
#     unwrapped) under a fixed import header, then called once per test with stdin, `open` and
#     `sys.stdin.buffer` replaced by the test input and stdout captured; SystemExit ends a run normally;
#   * call-based programs are executed once under the header; `fn_name` is looked up on a `Solution()`
#     instance when the code defines `class Solution`, else on the module; each test's newline-separated
#     JSON values are its positional arguments; a tuple result counts as a list; a result passes when it
#     equals the expected value, or its json.dumps does, or both convert to floats that are close;
#   * tests stop at the first failure; result codes: True pass, -2 wrong answer, -3 time limit, -4 error.
# zygote.py (appended to this file) forks one child per job from a warm interpreter and calls run_job there;
# the answer leaves on a private pipe, because the program's own output is captured or sent to /dev/null.
import ast
import builtins
import io
import json
import os
import signal
import sys
import time
import traceback
from decimal import Decimal

# The same star-imports, plain imports and order as the reference runner's header: they decide which names a
# program sees (e.g. `open` is io.open and `stdin` the real stdin at module level), so they decide verdicts.
STAR_IMPORTS = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
                "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing"]
PLAIN_IMPORTS = STAR_IMPORTS[:16]
HEADER = "".join("from %s import *\n" % m for m in STAR_IMPORTS) + "".join("import %s\n" % m for m in PLAIN_IMPORTS) \
    + "sys.setrecursionlimit(50000)\n"


class TimeoutException(Exception):
    """Raised by the per-test alarm (its repr is part of the recorded metadata)."""


def _alarm(signum, frame):
    raise TimeoutException


def clip(value, limit=300):
    s = value if isinstance(value, str) else str(value)
    return s if len(s) <= limit else s[: limit // 2] + "...(truncated) ..." + s[-limit // 2:]


def unwrap_main_guard(code):
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            return ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code


def as_function(code):
    """Hoist imports, wrap every other statement into `wrapped_function()`; unparsable code is left as is."""
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        body = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        fn = ast.FunctionDef(name="wrapped_function", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                             body=body, decorator_list=[], lineno=-1)
        return HEADER + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:
        return code


def load(code, timeout):
    signal.alarm(timeout)
    try:
        module = type(sys)("tmp_sol", "")
        exec(code, module.__dict__)
        return module.Solution() if "class Solution" in code else module
    finally:
        signal.alarm(0)


class FakeBuffer:
    def __init__(self, text):
        self.data = text.encode("utf-8")

    def read(self, *a):
        return self.data

    def readline(self, *a):
        return self.data.split(b"\n")[0] + b"\n"


class FakeStdin:
    """What `sys.stdin` is during a stdio test (mirrors the reference runner's mock, quirks included)."""

    def __init__(self, text):
        self.text = text
        self.lines = iter(text.split("\n"))
        self.stream = io.StringIO(text)
        self.buffer = FakeBuffer(text)

    def read(self, *a):
        return self.text

    def readline(self, *a):
        return next(self.lines)

    def readlines(self, *a):
        return self.text.split("\n")

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.stream)

    def __getattr__(self, name):
        return getattr(self.stream, name)


class FakeFile(io.StringIO):
    """What the builtin `open(...)` returns during a stdio test: the test input, writes discarded."""

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def call_with_stdin(fn, text):
    saved = (sys.stdin, builtins.open)
    sys.stdin = FakeStdin(text)
    builtins.open = lambda *a, **k: FakeFile(text)
    try:
        fn()
    except SystemExit:
        pass
    finally:
        sys.stdin, builtins.open = saved


def capture(fn):
    saved = sys.stdout
    buf = io.StringIO()
    buf.close = lambda x: 1  # the reference runner's capture object; a program's close() fails the same way
    sys.stdout = buf
    try:
        fn()
    finally:
        sys.stdout = saved
    return buf.getvalue()


def lines_of(text):
    return [line.strip() for line in text.strip().split("\n")]


def decimals(line):
    try:
        return [Decimal(tok) for tok in line.split()]
    except Exception:
        return None


def close_floats(a, b):
    # numpy.allclose semantics for two scalars (rtol 1e-5, atol 1e-8), without numpy.
    x, y = float(a), float(b)
    if x == y:
        return True
    if x != x or y != y or x in (float("inf"), float("-inf")) or y in (float("inf"), float("-inf")):
        return False
    return abs(x - y) <= 1e-8 + 1e-5 * abs(y)


def failed(results, code, message, exc, inputs, expected, with_tb):
    meta = {"error": repr(exc), "error_code": code, "error_message": message, "inputs": clip(inputs), "expected": clip(expected)}
    if with_tb:
        meta["traceback"] = traceback.format_exc()
    results.append(code)
    return results, meta


def grade_stdio(code, inputs, outputs, timeout):
    program = load(as_function(unwrap_main_guard(code)), timeout)
    fn = getattr(program, "wrapped_function", None)
    if fn is None:
        return None
    results, spent = [], 0.0
    for given, want in zip(inputs, outputs):
        signal.alarm(timeout)
        try:
            t0 = time.time()
            got = capture(lambda: call_with_stdin(fn, "\n".join(given) if isinstance(given, list) else given))
            spent += time.time() - t0
        except Exception as e:
            signal.alarm(0)
            if "timeoutexception" in repr(e).lower():
                return failed(results, -3, "Time Limit Exceeded", e, given, want, False)
            return failed(results, -4, "Runtime Error", e, given, want, True)
        finally:
            signal.alarm(0)
        got_lines, want_lines = lines_of(got), lines_of(want)
        wrong = {"output": clip(got), "inputs": clip(given), "expected": clip(want), "error_code": -2}
        if len(got_lines) != len(want_lines):
            results.append(-2)
            wrong["error_message"] = "Wrong answer: mismatched output length"
            return results, wrong
        for i, (g, w) in enumerate(zip(got_lines, want_lines)):
            if g == w:
                continue
            dg, dw = decimals(g), decimals(w)
            if dg is not None and dw is not None and dg == dw:
                continue
            results.append(-2)
            wrong["error_message"] = "Wrong answer at output_line_idx=%d: %s != %s" % (i, clip(g), clip(w))
            return results, wrong
        results.append(True)
    return results, {"execution time": spent}


def grade_call(code, inputs, outputs, fn_name, timeout):
    program = load(HEADER + "\n\n" + code, timeout)
    method = getattr(program, fn_name, None) if program is not None else None
    if method is None:
        return None
    args_per_test = [[json.loads(line) for line in given.split("\n")] for given in inputs]
    expected_per_test = [json.loads(want) for want in outputs]
    results, spent = [], 0.0
    for args, want in zip(args_per_test, expected_per_test):
        signal.alarm(timeout)
        try:
            t0 = time.time()
            got = method(*args)
            spent += time.time() - t0
            signal.alarm(0)
            if isinstance(got, tuple):
                got = list(got)
            ok = got == want
            try:
                ok = ok or json.dumps(got) == json.dumps(want)
            except Exception:
                pass
            try:
                ok = ok or close_floats(got, want)
            except Exception:
                pass
            results.append(ok)
            if not ok:
                return results, {"output": clip(got), "inputs": clip(args), "expected": clip(want), "error_code": -2, "error_message": "Wrong Answer"}
        except Exception as e:
            signal.alarm(0)
            if "timeoutexception" in repr(e).lower():
                return failed(results, -3, "Time Limit Exceeded", e, args, want, False)
            return failed(results, -4, "Runtime Error", e, args, want, True)
        finally:
            signal.alarm(0)
    return results, {"execution time": spent}


def guard(workdir):
    """Refuse what a test program has no business doing (the reliability guard, plus an audit hook)."""
    allowed_prefix = os.path.realpath(workdir) + os.sep
    getcwd = os.getcwd  # kept: the guard below removes os.getcwd, which realpath needs for relative paths

    def hook(event, args):
        if event == "open":
            path, mode = args[0], args[1]
            writing = isinstance(mode, str) and any(c in mode for c in "wax+")
            if writing and isinstance(path, (str, bytes)):
                p = os.fsdecode(path)
                p = os.path.realpath(p if os.path.isabs(p) else os.path.join(getcwd(), p))
                if not p.startswith(allowed_prefix):
                    raise PermissionError("gym sandbox: writing outside the run directory is not allowed: %s" % p)
        elif event in ("os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.kill", "os.killpg",
                       "subprocess.Popen", "socket.connect", "socket.bind", "socket.sendto", "ctypes.dlopen", "pty.spawn"):
            raise PermissionError("gym sandbox: %s is not allowed" % event)

    sys.addaudithook(hook)
    builtins.quit = None
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty", "killpg", "rename",
                 "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot", "lchflags", "lchmod",
                 "lchown", "getcwd", "chdir"):
        if hasattr(os, name):
            setattr(os, name, None)
    import shutil
    import subprocess
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for mod in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[mod] = None


def run_job(job, answer_fd):
    """In a freshly forked child: apply the limits and the guard, grade, write one JSON answer to answer_fd."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # the program's direct fd writes go nowhere; print() is captured per test
    import resource
    for limit, value in ((resource.RLIMIT_AS, job["memory_bytes"]), (resource.RLIMIT_FSIZE, job["file_bytes"]), (resource.RLIMIT_CPU, job["cpu_seconds"])):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
    os.environ["OMP_NUM_THREADS"] = "1"
    signal.signal(signal.SIGALRM, _alarm)
    if job.get("kind") == "nvarc":
        nvarc_preload()  # nvarc.py: numpy's import needs os functions the guard removes
    guard(job["workdir"])
    if job.get("kind") == "evalplus":
        return run_evalplus_job(job, answer_fd)  # evalplus.py, appended after this file
    if job.get("kind") == "nvarc":
        return run_nvarc_job(job, answer_fd)  # nvarc.py, appended after this file
    timeout = job["timeout"]
    try:
        if job.get("fn_name") is None:
            out = grade_stdio(job["code"], job["inputs"], job["outputs"], timeout)
        else:
            out = grade_call(job["code"], job["inputs"], job["outputs"], job["fn_name"], timeout)
        results, meta = out  # None (no function to call) fails here, as in the reference runner
    except Exception as e:
        results, meta = [-4], {"error_code": -4, "error_message": "Error during testing: %s" % e}
    finally:
        signal.alarm(0)
    data = json.dumps({"result": results, "metadata": meta}).encode("utf-8")
    while data:
        data = data[os.write(answer_fd, data):]
