#!/usr/bin/env python3
"""Dump gpumemsim tracer raw files (tracer/lift_raw.h format) for a first look at a GPU run.

Prints per file: record counts per type, every INFO fact, LAUNCH statistics (with pointers,
parameter layouts known or not, corr == corr2, matched to a KERNEL record), NVTX range
domains, and the thread ids of markers and launches (they must match for ranges to form ops).
--all also prints every record in time order. Exit status 1 when a file is not a raw file.

Usage: rawdump.py gms-PID.raw... [--all]
"""
import collections
import struct
import sys

TYPES = {1: "ALLOC", 2: "FREE", 3: "KERNEL", 4: "LAUNCH", 5: "MARKER", 6: "MARKER_DATA",
         7: "MEMCPY", 8: "MEMSET", 9: "INFO", 10: "COPY", 11: "API_ALLOC", 12: "API_FREE"}
FIELDS = "ts end corr corr2 addr bytes stream thread flags id aux value".split()
MARK_START = 2  # TRC_MARK_START (lift_raw.h)
UNKNOWN_LAYOUT = 0xFFFFFFFF  # LAUNCH.aux when the parameter layout could not be read


def records(data, out):
    """Yields the records of one raw file; a truncated tail is reported, not fatal."""
    if data[:8] != b"GMSRAW01" or len(data) < 24:
        raise ValueError("not a gpumemsim raw file (no GMSRAW01 header)")
    off = 24
    while off + 8 <= len(data):
        typ, length = struct.unpack_from("<II", data, off)
        off += 8
        if off + length > len(data) or length < 112:
            out.write(f"# truncated or corrupt record at byte {off - 8}: the rest is ignored\n")
            return
        p = data[off:off + length]
        off += length
        rec = dict(zip(FIELDS, struct.unpack_from("<12Q", p, 0)))
        nptr, nlen, tlen, _ = struct.unpack_from("<4I", p, 96)
        if 112 + 8 * nptr + nlen + tlen != length:
            out.write(f"# record at byte {off - length - 8} has inconsistent lengths: stop\n")
            return
        rec["ptrs"] = struct.unpack_from(f"<{nptr}Q", p, 112)
        s = 112 + 8 * nptr
        rec["name"] = p[s:s + nlen].decode("utf-8", "replace")
        rec["text"] = p[s + nlen:s + nlen + tlen].decode("utf-8", "replace")
        rec["type"] = TYPES.get(typ, str(typ))
        yield rec


def dump(recs, show_all, out):
    counts = collections.Counter(r["type"] for r in recs)
    out.write("# counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + "\n")
    for r in recs:
        if r["type"] == "INFO":
            out.write(f"INFO {r['name']} = {r['text']}\n")
    launches = [r for r in recs if r["type"] == "LAUNCH"]
    kernels = {r["corr"] for r in recs if r["type"] == "KERNEL"}
    if launches:
        with_p = sum(1 for r in launches if r["ptrs"])
        unknown = sum(1 for r in launches if r["aux"] == UNKNOWN_LAYOUT)
        zero = sum(1 for r in launches if r["aux"] == 0)
        same = sum(1 for r in launches if r["corr"] == r["corr2"])
        no_rt = sum(1 for r in launches if r["corr2"] == 0)
        matched = sum(1 for r in launches if r["corr"] in kernels or r["corr2"] in kernels)
        out.write(f"# LAUNCH: {len(launches)}, with pointers {with_p}, layout unknown {unknown}, "
                  f"0 parameters {zero}, corr==corr2 {same}, corr2==0 {no_rt}, "
                  f"matched to a KERNEL {matched} (of {len(kernels)} kernels)\n")
    else:
        out.write("# LAUNCH: 0\n")
    domains = collections.Counter((r["text"] or "<default>") for r in recs
                                  if r["type"] == "MARKER" and r["flags"] & MARK_START)
    out.write("# MARKER start domains: " +
              (", ".join(f"{k} {v}" for k, v in sorted(domains.items())) or "none") + "\n")
    mthreads = collections.Counter(r["thread"] for r in recs if r["type"] == "MARKER")
    lthreads = collections.Counter(r["thread"] for r in launches)
    out.write(f"# MARKER thread ids: {dict(mthreads)}  LAUNCH thread ids: {dict(lthreads)}\n")
    if show_all:
        for r in sorted(recs, key=lambda r: r["ts"]):
            extra = f" ptrs={[hex(p) for p in r['ptrs']]}" if r["ptrs"] else ""
            out.write(f"{r['ts']:>20} {r['type']:<11} corr={r['corr']} corr2={r['corr2']} "
                      f"thr={r['thread']} addr={r['addr']:#x} bytes={r['bytes']} "
                      f"flags={r['flags']} id={r['id']} aux={r['aux']} "
                      f"name={r['name'][:60]!r} text={r['text'][:30]!r}{extra}\n")


def main(argv):
    show_all = "--all" in argv
    paths = [a for a in argv if a != "--all"]
    if not paths or any(a in ("-h", "--help") for a in paths):
        sys.stdout.write(__doc__)
        return 0 if paths else 2
    rc = 0
    for path in paths:
        sys.stdout.write(f"== {path}\n")
        try:
            with open(path, "rb") as f:
                data = f.read()
            dump(list(records(data, sys.stdout)), show_all, sys.stdout)
        except (OSError, ValueError) as e:
            sys.stderr.write(f"rawdump.py: {path}: {e}\n")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
