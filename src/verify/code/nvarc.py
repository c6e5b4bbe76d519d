# NVARC inductive jobs ("kind": "nvarc"; appended to driver.py before the zygote): the model's program
# defines transform(grid); it runs once on the task's test input, as upstream nvarc's subprocess sandbox
# does: restricted builtins and imports inside exec, stdout/stderr swallowed, an alarm of `timeout` s
# around the transform call, numpy/torch results turned into lists. On top of that the job already has
# gym's limits and guard (run_job). The answer is {"grid": [[int]]} when the result validates as
# upstream's Board (a non-empty rectangular list of int rows, pydantic's lax int coercion), else
# {"grid": null, "error": "..."}.

NV_BANNED_BUILTINS = frozenset({
    'open', 'input', 'breakpoint', 'help', 'license', 'credits', 'copyright',
    'exit', 'quit', 'vars', 'dir', 'globals', 'locals',
})
NV_BANNED_MODULES = frozenset({
    'os', 'subprocess', 'shutil', 'pathlib', 'builtins',
    'socket', 'urllib', 'requests', 'http', 'ftplib', 'smtplib',
    'pickle', 'shelve', 'marshal', 'importlib', 'pkgutil',
    'ctypes', 'multiprocessing', 'threading', 'signal',
    'tempfile', 'fileinput', 'codecs', 'pty', 'fcntl',
    'resource', 'syslog', 'asyncio', 'concurrent',
})


def nvarc_preload():
    """Import numpy before the guard (upstream's sandbox leaves os intact, and numpy's import calls os.putenv)."""
    try:
        import numpy  # noqa: F401
    except Exception:
        pass


class NvTimeout(Exception):
    pass


def _nv_plain(obj):
    """numpy arrays / scalars (and nested lists, tuples, dicts of them) as Python values."""
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(obj, np.ndarray):
            return _nv_plain(obj.tolist())
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return float(obj)
        if isinstance(obj, np.bool_):
            return bool(obj)
    if isinstance(obj, list):
        return [_nv_plain(x) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_nv_plain(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _nv_plain(v) for k, v in obj.items()}
    return obj


def _nv_int(v):
    # pydantic's lax int: bools, integral floats, integer strings; anything else fails validation.
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        return int(v.strip())
    raise ValueError("not an int: %r" % (v,))


def _nv_board(result):
    """upstream Board(board=result).is_valid → board.board, or None."""
    if not isinstance(result, (list, tuple)):
        return None
    rows = []
    for row in result:
        if not isinstance(row, (list, tuple)):
            return None
        try:
            rows.append([_nv_int(c) for c in row])
        except (ValueError, TypeError, OverflowError):
            return None
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        return None
    return rows


def nvarc_transform(code, grid, timeout):
    import builtins as _b
    original_import = _b.__import__

    def restricted_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name.split('.')[0] in NV_BANNED_MODULES:
            raise ImportError("Import of '%s' is not allowed in sandbox" % name)
        return original_import(name, globals, locals, fromlist, level)

    safe = {k: v for k, v in vars(_b).items() if k not in NV_BANNED_BUILTINS}
    safe['__import__'] = restricted_import
    safe['__builtins__'] = safe

    def on_alarm(signum, frame):
        raise NvTimeout("Transform execution exceeded %ss" % timeout)

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        env = {'__builtins__': safe}
        exec(code, env)
        if 'transform' not in env:
            raise ValueError("No 'transform' function defined in code")
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(timeout)
        try:
            result = env['transform'](grid)
        finally:
            signal.alarm(0)
        if result is None:
            return {"grid": None, "error": "transform returned None"}
        if hasattr(result, 'detach') and hasattr(result, 'cpu'):
            result = result.detach().cpu().tolist()
        return {"grid": _nv_board(_nv_plain(result))}
    except NvTimeout as e:
        return {"grid": None, "error": "TimeoutError: %s" % e}
    except BaseException as e:
        return {"grid": None, "error": "%s: %s" % (type(e).__name__, str(e)[:500])}
    finally:
        sys.stdout, sys.stderr = saved


def run_nvarc_job(job, answer_fd):
    """The nvarc kind of run_job (limits and guard already applied): one JSON answer."""
    answer = nvarc_transform(job["code"], job["grid"], int(job["timeout"]))
    data = json.dumps(answer).encode("utf-8")
    while data:
        data = data[os.write(answer_fd, data):]
