/**
 * The small Python program that starts inside each Python sandbox. It is passed with `-c`, waits
 * for the user's code on stdin (so a sandbox can be started before a request arrives), runs it as
 * `__main__`, and writes the error object `{ name, value, traceback }` (spec §4.8) as JSON to fd 3
 * — a pipe only the host reads — with the runner's own frames removed from the traceback. Before
 * reading anything it sets its rlimits (argv 1-5) as hard limits.
 */
export const PYTHON_RUNNER = String.raw`
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
def _run():
    import json, linecache, traceback
    data = sys.stdin.buffer.read()
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
            err = ('SystemExit', str(code), 'SystemExit: %s\n' % code)
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != name:
            tb = tb.tb_next
        text = ''.join(traceback.format_exception(type(e), e, tb))
        err = (type(e).__name__, str(e), text)
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
    import threading
    if threading.active_count() == 1:
        # Nothing left to wait for: skip interpreter teardown, which costs milliseconds per run.
        os._exit(0)
_run()
`;
