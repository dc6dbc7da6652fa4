/**
 * The Python UNO driver run next to each warm LibreOffice listener (design: "Office supervisor").
 * It is kept as a string so the compiled service needs no extra asset: the pool writes it into
 * its work directory at start and runs it with `/usr/bin/python3` (which has `python3-uno`).
 */
import { DETECTION_SOURCE } from './driver-detection-source.js';

/** Source of the driver script (protocol in its docstring). */
export const DRIVER_SOURCE = String.raw`
"""UNO driver for one warm LibreOffice listener (spec §4.6, design: "Office supervisor").

Started by core/engines/office/worker.ts as a process-group leader; it starts its own
soffice --accept=pipe,... listener in that group, so one group kill stops both, and when its
stdin closes (the service stopped or died) it kills LibreOffice before exiting. It connects once, then reads one JSON job per line on stdin and answers one JSON line per job on
stdout, so no document pays LibreOffice's cold start. It never decides policy (timeouts,
restarts): the Node supervisor does, and kills this process and soffice when needed.

Job:    {"id": n, "input": "/abs/in.docx", "output": "/abs/out.pdf", "importFilter": "..."|null, "importOptions": "..."|null,
         "plainText": bool, "formats": ["docx", ...]|null, "pdfVersion": 0|1|2|3, "tagged": bool, "pdfua": bool}
Events: {"ready": true, "pid": n} once connected; {"ready": false, "error": "..."} if it never was;
        {"dead": true, "error": "..."} if soffice exits.
Answer: {"id": n, "ok": true, "pages": n, "type": "..."} or
        {"id": n, "ok": false, "kind": "load"|"type"|"export"|"internal"|"dead"|"memory", "reason": "...", "error": "..."}

Under an address-space limit (prlimit --as, where no memory cgroup could be made) LibreOffice
does not get killed: an allocation fails, and it either aborts on std::bad_alloc or gives the
load up. Either is reported as kind "memory" (and "memory": true on the dead event), told apart
by soffice's stderr or by its peak address space having reached the limit; the driver then
stops, so the supervisor starts a fresh LibreOffice.

Without an import filter, LibreOffice's own deep type detection names the type first: when it
finds nothing, or only its plain-text import (which takes any bytes) and the job does not accept
plain text, the job fails with kind "type" before anything is loaded; with "formats", a type
none of whose extensions is listed fails too.
"""
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time

import uno
from com.sun.star.beans import PropertyValue

EXPORT_FILTERS = [
    ("com.sun.star.text.WebDocument", "writer_web_pdf_Export"),
    ("com.sun.star.text.GlobalDocument", "writer_globaldocument_pdf_Export"),
    ("com.sun.star.text.TextDocument", "writer_pdf_Export"),
    ("com.sun.star.sheet.SpreadsheetDocument", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "draw_pdf_Export"),
    ("com.sun.star.formula.FormulaProperties", "math_pdf_Export"),
]


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


EMIT_LOCK = threading.Lock()


def emit(obj):
    with EMIT_LOCK:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def connect(pipe, deadline, office):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    url = "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe
    last = None
    while time.time() < deadline:
        # A binary that exits at once (missing libraries, wrong program) fails now, not at the deadline.
        if office.poll() is not None:
            raise RuntimeError("LibreOffice exited with status %s before accepting connections" % office.returncode)
        try:
            ctx = resolver.resolve(url)
            smgr = ctx.ServiceManager
            desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            return desktop, Types(ctx)
        except Exception as e:  # NoConnectException until soffice listens
            last = e
            time.sleep(0.1)
    raise RuntimeError("could not connect to LibreOffice: %s" % last)


def export_filter(doc):
    for service, name in EXPORT_FILTERS:
        if doc.supportsService(service):
            return name
    return "writer_pdf_Export"


def page_count(doc):
    try:
        if doc.supportsService("com.sun.star.text.TextDocument"):
            return doc.getCurrentController().getPropertyValue("PageCount")
        if doc.supportsService("com.sun.star.drawing.GenericDrawingDocument"):
            return doc.getDrawPages().getCount()
    except Exception:
        pass
    return None


class Dead(Exception):
    pass


def check_alive(desktop, err):
    """A load or export error can be LibreOffice dying under us: tell those apart from bad input."""
    if type(err).__name__ == "DisposedException" or "disposed" in str(err).lower():
        raise Dead(str(err))
    try:
        desktop.getFrames().getCount()
    except Exception as e:
        raise Dead("%s (after %s)" % (e, err))


def convert(desktop, types, job):
    bad = check_paths(job)
    if bad:
        return bad
    try:
        url = uno.systemPathToFileUrl(job["input"])
        out_url = uno.systemPathToFileUrl(job["output"])
    except Exception as e:
        return failure("internal", "bad job path: %s" % e)
    type_name = None
    filter_name = job.get("importFilter")
    if not filter_name:
        try:
            found = detect(types, url, job)
        except Exception as e:
            check_alive(desktop, e)
            return failure("load", "type detection failed: %s" % getattr(e, "Message", str(e)))
        if isinstance(found, dict):
            return found
        type_name, filter_name = found
    load = [
        prop("Hidden", True),
        prop("ReadOnly", True),
        # Never run macros or fetch linked content from a user's document.
        prop("MacroExecutionMode", 0),
        prop("UpdateDocMode", 0),
        # A wrong (empty) password makes a protected file fail to load instead of prompting.
        prop("Password", ""),
    ]
    if filter_name:
        load.append(prop("FilterName", filter_name))
    if job.get("importOptions"):
        load.append(prop("FilterOptions", job["importOptions"]))
    try:
        doc = desktop.loadComponentFromURL(url, "_blank", 0, tuple(load))
    except Exception as e:
        check_alive(desktop, e)
        return failure("load", "%s: %s" % (type(e).__name__, getattr(e, "Message", str(e))))
    if doc is None:
        check_alive(desktop, RuntimeError("no document"))
        if types.component_missing(filter_name):
            return failure("type", "the %s import needs a component that is not installed" % filter_name, "noimport")
        return failure("load", "the document could not be opened")
    try:
        data = [prop("UseTaggedPDF", bool(job.get("tagged"))), prop("ExportBookmarks", True)]
        if job.get("pdfVersion"):
            data.append(prop("SelectPdfVersion", int(job["pdfVersion"])))
        if job.get("pdfua"):
            data.append(prop("PDFUACompliance", True))
            data.append(prop("UseTaggedPDF", True))
        filter_data = uno.Any("[]com.sun.star.beans.PropertyValue", tuple(data))
        store = (prop("FilterName", export_filter(doc)), prop("FilterData", filter_data), prop("Overwrite", True))
        try:
            uno.invoke(doc, "storeToURL", (out_url, store))
        except Exception as e:
            check_alive(desktop, e)
            return failure("export", "%s: %s" % (type(e).__name__, getattr(e, "Message", str(e))))
        return {"ok": True, "pages": page_count(doc), "type": type_name}
    finally:
        try:
            doc.close(True)
        except Exception:
            try:
                doc.dispose()
            except Exception:
                pass


` + DETECTION_SOURCE + String.raw`
OUT_OF_MEMORY = re.compile(r"std::bad_alloc|out of memory|cannot allocate memory", re.I)
# An allocation refused under RLIMIT_AS leaves the peak this close to the limit when memory grew
# step by step (what a document that keeps allocating does).
PEAK_MARGIN = 64 * 1024 * 1024


class Stderr:
    """What soffice writes to stderr, read by a thread so the pipe never fills; remembers whether
    it said it ran out of memory (the crash report after it can be longer than any tail kept)."""

    def __init__(self, pipe):
        self.tail = b""
        self.oom = False
        self.thread = threading.Thread(target=self.read, args=(pipe,), daemon=True)
        self.thread.start()

    def read(self, pipe):
        for chunk in iter(lambda: pipe.read1(4096), b""):
            window = self.tail[-64:] + chunk
            self.tail = (self.tail + chunk)[-8192:]
            if OUT_OF_MEMORY.search(window.decode("utf-8", "replace")):
                self.oom = True

    def reset(self):
        self.tail = b""
        self.oom = False

    def said_out_of_memory(self, wait=0):
        """With wait, first up to that many seconds for soffice to close the pipe."""
        if wait:
            self.thread.join(wait)
        return self.oom


def soffice_peak():
    """The largest VmPeak of a soffice.bin in this driver's process group, in bytes (0: none)."""
    group = os.getpgrp()
    most = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if "(soffice.bin)" not in stat or int(fields[2]) != group:
                continue
            with open("/proc/%s/status" % pid) as f:
                peak = re.search(r"^VmPeak:\s+(\d+) kB", f.read(), re.M)
            if peak:
                most = max(most, int(peak.group(1)) * 1024)
        except (OSError, ValueError):
            continue
    return most


class Peak:
    """soffice.bin's peak address space during the current job, sampled, so it is known even
    after soffice died of a failed allocation without saying so (a crash on a null pointer)."""

    def __init__(self):
        self.limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        self.busy = False
        self.seen = 0
        if self.limit != resource.RLIM_INFINITY:
            threading.Thread(target=self.sample, daemon=True).start()

    def sample(self):
        while True:
            time.sleep(0.1)
            if self.busy:
                self.seen = max(self.seen, soffice_peak())

    def start(self):
        self.seen = 0
        self.busy = True

    def near_limit(self):
        """Whether the peak reached the address-space limit (never, without one)."""
        if self.limit == resource.RLIM_INFINITY:
            return False
        return max(self.seen if self.busy else 0, soffice_peak()) >= self.limit - PEAK_MARGIN


def out_of_memory(stderr, peak, wait=0):
    """Whether LibreOffice failed for want of memory (its stderr says so, or its peak hit the limit)."""
    return stderr.said_out_of_memory(wait) or peak.near_limit()


def start_office(binary, profile_dir, pipe):
    # Same process group as this driver, so the supervisor's group kill takes both.
    office = subprocess.Popen(
        [binary, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck",
         "--nofirststartwizard", "-env:UserInstallation=" + uno.systemPathToFileUrl(profile_dir),
         "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % pipe],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    return office, Stderr(office.stderr)


def stop_office(office):
    try:
        office.terminate()
        office.wait(3)
    except Exception:
        pass
    # Whatever is left in our group (soffice.bin under oosplash), this driver included.
    os.killpg(os.getpgrp(), signal.SIGKILL)


def watch(office, stderr, peak):
    office.wait()
    emit({"dead": True, "memory": out_of_memory(stderr, peak, 2), "error": "LibreOffice exited (%s)" % office.returncode})
    os._exit(3)


def main():
    binary, profile_dir, pipe = sys.argv[1], sys.argv[2], sys.argv[3]
    deadline = time.time() + float(sys.argv[4] if len(sys.argv) > 4 else 60)
    try:
        office, stderr = start_office(binary, profile_dir, pipe)
    except Exception as e:  # a missing or non-executable binary
        emit({"ready": False, "error": "cannot run %s: %s" % (binary, e)})
        return 2
    try:
        desktop, types = connect(pipe, deadline, office)
    except Exception as e:
        emit({"ready": False, "error": str(e)})
        stop_office(office)
        return 2
    peak = Peak()
    threading.Thread(target=watch, args=(office, stderr, peak), daemon=True).start()
    emit({"ready": True, "pid": office.pid})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        job = json.loads(line)
        # What soffice printed for an earlier job says nothing about this one.
        stderr.reset()
        peak.start()
        try:
            result = convert(desktop, types, job)
        except Exception as e:
            # The bridge is gone (soffice crashed or was killed): tell the supervisor and stop.
            try:
                office.wait(2)
            except Exception:
                pass
            kind = "memory" if out_of_memory(stderr, peak, 2) else "dead"
            emit({"id": job.get("id"), "ok": False, "kind": kind, "error": "%s: %s" % (type(e).__name__, e)})
            stop_office(office)
            return 3
        result["id"] = job.get("id")
        # A load or export given up because an allocation failed: LibreOffice is not to be trusted
        # after that, so this one is replaced.
        spent = not result.get("ok") and result.get("kind") in ("load", "export") and out_of_memory(stderr, peak)
        if spent:
            result = {"id": job.get("id"), "ok": False, "kind": "memory", "error": "an allocation failed: %s" % result.get("error")}
        peak.busy = False
        emit(result)
        if spent:
            stop_office(office)
            return 3
    # stdin closed: the supervisor stopped us or died; never leave LibreOffice behind.
    stop_office(office)
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;
