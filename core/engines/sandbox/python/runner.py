"""The program that starts inside each Python sandbox (passed to `python3 -I -c` by runner.ts).

It waits for the user's code on stdin (so a sandbox can be started before a request arrives),
after a first line with the run's address-space limit, runs it as `__main__`, and writes the
error object `{ name, value, traceback }` (spec 4.8) as JSON to fd 3 -- a pipe only the host
reads -- with the runner's own frames removed from the traceback. Before reading anything it
sets its rlimits (argv 1-5) as hard limits. Each error field is cut to the host's cap with the
host's note (argv 6-7), so a huge message still fits the result pipe (`raise Exception('x' *
5_000_000)` must stay a readable error, never a cut-off result), and the runner exits 1 after an
error.
"""
import sys, os, resource
def _limit(which, value):
    resource.setrlimit(which, (value, value))
# argv: nproc, address space, file size, open files, cpu seconds. Hard limits: the code can only
# lower them further.
_n, _as, _fs, _nf, _cpu = (int(x) for x in sys.argv[1:6])
_limit(resource.RLIMIT_NPROC, _n)
_limit(resource.RLIMIT_AS, _as)
_limit(resource.RLIMIT_FSIZE, _fs)
_limit(resource.RLIMIT_NOFILE, _nf)
_limit(resource.RLIMIT_CPU, _cpu)
_limit(resource.RLIMIT_CORE, 0)
os.set_inheritable(3, False)
_main_pid = os.getpid()
# argv 6 and 7: the host's cap of one error field in UTF-8 bytes and the note that ends a cut one
# (ERROR_FIELD_MAX_BYTES and FIELD_TRUNCATED_NOTE of ../output.ts), so both sides cut alike.
_CAP = int(sys.argv[6])
_NOTE = sys.argv[7]
def _cap(text):
    data = text.encode('utf-8', 'replace')
    if len(data) <= _CAP:
        return text
    return data[:_CAP - len(_NOTE.encode())].decode('utf-8', 'ignore') + _NOTE
def _text(fn):
    try:
        return _cap(fn())
    except BaseException:
        return '<unprintable>'
def _run():
    import json, linecache, traceback
    data = sys.stdin.buffer.read()
    # The first line is this run's address-space limit in bytes (the cap of argv 2, or less when
    # the run asked for less memory); hard, like the others, before any code runs.
    head, _, data = data.partition(b'\n')
    _limit(resource.RLIMIT_AS, min(int(head), _as))
    null = os.open('/dev/null', os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    res = os.fdopen(3, 'w')
    src = data.decode('utf-8', 'replace')
    name = 'main.py'
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    sys.path[:0] = ['/work/.packages', '/work']
    g = {'__name__': '__main__', '__file__': '/work/main.py', '__builtins__': __builtins__}
    sys.argv = ['main.py']
    err = None
    try:
        exec(compile(src, name, 'exec'), g)
    except SystemExit as e:
        code = e.code
        if code not in (None, 0):
            err = ('SystemExit', _text(lambda: str(code)), _text(lambda: 'SystemExit: %s\n' % code))
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != name:
            tb = tb.tb_next
        err = (_text(lambda: type(e).__name__), _text(lambda: str(e)), _text(lambda: ''.join(traceback.format_exception(type(e), e, tb))))
    if os.getpid() != _main_pid:
        # A process forked by the code fell through to here: only the main process reports.
        os._exit(0 if err is None else 1)
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    if err is not None:
        res.write(json.dumps({'name': err[0], 'value': err[1], 'traceback': err[2]}))
    else:
        res.write('{}')
    res.close()
    status = 0 if err is None else 1
    import threading
    if threading.active_count() == 1:
        # Nothing left to wait for: skip interpreter teardown, which costs milliseconds per run.
        os._exit(status)
    return status
sys.exit(_run())
