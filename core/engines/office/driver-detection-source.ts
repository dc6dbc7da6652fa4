/**
 * The checks the UNO driver (driver-source.ts) runs before LibreOffice loads a job's input:
 * job files the service failed to provide (our fault: kind "internal", a 500), and LibreOffice's
 * own deep type detection, which refuses a file only its plain-text import would take, a type
 * outside the caller's list, or an extension no installed filter imports. Concatenated into the
 * driver script; the names it uses (prop, os) come from there.
 */
/** Python source of the driver's job checks. */
export const DETECTION_SOURCE = String.raw`
class Types:
    """LibreOffice's type detection and filter registry."""

    def __init__(self, ctx):
        smgr = ctx.ServiceManager
        self.detection = smgr.createInstanceWithContext("com.sun.star.document.TypeDetection", ctx)
        self.filters = smgr.createInstanceWithContext("com.sun.star.document.FilterFactory", ctx)
        self._ctx = ctx
        self._importable = None

    def component_missing(self, filter_name):
        """Calc imports dBase through the sdbc driver of a separate package (libreoffice-base-drivers)."""
        if filter_name != "dBase":
            return False
        try:
            smgr = self._ctx.ServiceManager
            return smgr.createInstanceWithContext("com.sun.star.comp.sdbc.dbase.ODriver", self._ctx) is None
        except Exception:  # an unknown implementation may raise instead of returning None
            return True

    def importable(self):
        """Extensions some installed import filter reads (computed once, on the first refusal)."""
        if self._importable is None:
            exts = set()
            for name in self.detection.getElementNames():
                info = dict((p.Name, p.Value) for p in self.detection.getByName(name))
                preferred = info.get("PreferredFilter")
                if not preferred or not self.filters.hasByName(preferred):
                    continue
                flags = dict((p.Name, p.Value) for p in self.filters.getByName(preferred)).get("Flags") or 0
                if flags & 1:  # IMPORT
                    exts.update(e.lower() for e in (info.get("Extensions") or ()))
            self._importable = exts
        return self._importable




def failure(kind, error, reason=None):
    return {"ok": False, "kind": kind, "reason": reason, "error": error}


def check_paths(job):
    """Job files the service failed to provide are its own fault (a 500), never the input's."""
    src, out = job.get("input") or "", job.get("output") or ""
    if not os.path.isabs(src) or not os.path.isfile(src) or not os.access(src, os.R_OK):
        return failure("internal", "the input file %r is not readable here" % src)
    if not os.path.isabs(out) or not os.access(os.path.dirname(out), os.W_OK):
        return failure("internal", "the output directory of %r is not writable here" % out)
    return None


def refuse(types, job, error, reason):
    """A type refusal; an extension no installed filter imports says so rather than blame the file."""
    ext = os.path.splitext(job["input"])[1][1:].lower()
    if ext and reason in ("plain", "unknown") and ext not in types.importable() and not job.get("plainText"):
        return failure("type", "no import filter for .%s is installed" % ext, "noimport")
    return failure("type", error, reason)


def detect(types, url, job):
    """(type, filter) LibreOffice would use, or a failure when the job must not go on."""
    detection = types.detection
    found = detection.queryTypeByDescriptor((prop("URL", url),), True)
    type_name = found[0] or ""
    filter_name = ""
    for p in found[1]:
        if p.Name == "FilterName":
            filter_name = p.Value or ""
    if not type_name:
        return refuse(types, job, "no type matches", "unknown")
    # generic_Text reads any bytes as characters: right for text, a page of noise for binary.
    if (type_name == "generic_Text" or filter_name.startswith("Text")) and not job.get("plainText"):
        return refuse(types, job, "only the plain-text import accepts it (%s)" % type_name, "plain")
    formats = job.get("formats")
    if formats is not None:
        info = dict((p.Name, p.Value) for p in detection.getByName(type_name))
        exts = set(e.lower() for e in (info.get("Extensions") or ()))
        if not exts & set(formats):
            return failure("type", info.get("UIName") or type_name, "unsupported")
    return type_name, filter_name




`;
