#!/usr/bin/env python3
"""Checks a memory snapshot gpumemsim exported (analysis/memviz.c) as memory_viz reads it.

usage: memviz_check.py SNAPSHOT [RUN_JSON]

- Only the pickle opcodes MemoryViz.js's own unpickler knows; Python's pickle.load reads it.
- Forward: every alloc lies inside a segment held then and overlaps no live block; a segment
  is given back (segment_free, segment_unmap) only with no live block in it; each free
  matches a live alloc. At the end the segments held are the final `segments` and the live
  allocations their active blocks (address and requested size).
- Backward, as the Allocator State History replays (MemoryViz.js simulate_memory): from the
  final segments and blocks, undoing events one by one, every block lies in a segment at
  every step, and nothing is left before the first event (the run starts empty).
- With RUN_JSON (sim --json): the timeline's peak is at most peak_memory (equal unless simrd's
  duplicate copy of a resident output made the peak: it is not exported), and with a memory
  model the reserved bytes' peak over the segment events is peak_reserved.
Prints one JSON line of figures; exits non-zero with the first rule broken.
"""
import json
import pickle
import pickletools
import sys

KNOWN = {"PROTO", "FRAME", "MEMOIZE", "BINPUT", "LONG_BINPUT", "BINGET", "LONG_BINGET", "MARK",
         "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "DICT", "LIST", "TUPLE", "TUPLE1", "TUPLE2",
         "TUPLE3", "SETITEM", "SETITEMS", "APPEND", "APPENDS", "BININT", "BININT1", "BININT2",
         "LONG1", "SHORT_BINUNICODE", "BINUNICODE", "BINFLOAT", "NONE", "NEWTRUE", "NEWFALSE",
         "STOP"}


def fail(msg):
    print("memviz_check: " + msg, file=sys.stderr)
    sys.exit(1)


def merged(ranges):
    out = []
    for a, s in sorted(ranges):
        if out and out[-1][0] + out[-1][1] == a:
            out[-1][1] += s
        else:
            out.append([a, s])
    return [tuple(r) for r in out]


def inside(ranges, a, s):
    return any(r0 <= a and a + s <= r0 + rs for r0, rs in ranges)


def main():
    raw = open(sys.argv[1], "rb").read()
    ops = {op.name for op, _, _ in pickletools.genops(raw)}
    if not ops <= KNOWN:
        fail(f"opcodes MemoryViz.js does not read: {sorted(ops - KNOWN)}")
    d = pickle.loads(raw)
    for k in ("segments", "device_traces", "allocator_settings"):
        if k not in d:
            fail(f"no '{k}'")
    tr = d["device_traces"][0]
    segs = []          # (addr, size) held now
    live = {}          # addr -> requested size
    cur = peak = reserved = peak_reserved = 0
    counts = {}
    for i, e in enumerate(tr):
        a, act, size = e["addr"], e["action"], e["size"]
        counts[act] = counts.get(act, 0) + 1
        if len(e["frames"]) != 1 or not e["frames"][0]["name"]:
            fail(f"event {i}: frames {e['frames']}")
        if act in ("segment_alloc", "segment_map"):
            if any(r0 < a + size and a < r0 + rs for r0, rs in segs):
                fail(f"event {i}: {act} {a:#x}+{size} overlaps a segment held")
            segs.append((a, size))
            if act == "segment_map":
                segs = merged(segs)
            reserved += size
            peak_reserved = max(peak_reserved, reserved)
        elif act in ("segment_free", "segment_unmap"):
            if any(a <= b < a + size for b in live):
                fail(f"event {i}: {act} {a:#x} with a live block in it")
            if act == "segment_free":
                if (a, size) not in segs:
                    fail(f"event {i}: segment_free of {a:#x}+{size}, not a segment held")
                segs.remove((a, size))
            else:
                hit = [r for r in segs if r[0] <= a and a + size <= r[0] + r[1]]
                if not hit:
                    fail(f"event {i}: segment_unmap of {a:#x}+{size} outside the segments")
                r0, rs = hit[0]
                segs.remove(hit[0])
                segs += [(r0, a - r0)] if a > r0 else []
                segs += [(a + size, r0 + rs - a - size)] if a + size < r0 + rs else []
            reserved -= size
        elif act == "alloc":
            if not inside(segs, a, size):
                fail(f"event {i}: alloc {a:#x}+{size} outside every segment held")
            if any(b < a + size and a < b + s for b, s in live.items()):
                fail(f"event {i}: alloc {a:#x}+{size} overlaps a live block")
            live[a] = size
            cur += size
            peak = max(peak, cur)
        elif act == "free_completed":
            if live.get(a) != size:
                fail(f"event {i}: free_completed {a:#x}+{size} is not a live alloc")
            cur -= live.pop(a)
    final = [(s["address"], s["total_size"]) for s in d["segments"]]
    if merged(final) != merged(segs):
        fail(f"final segments {len(final)} differ from those the trace leaves {len(segs)}")
    active = {b["address"]: b["requested_size"] for s in d["segments"] for b in s["blocks"]
              if b["state"] == "active_allocated"}
    if active != live:
        fail(f"final active blocks ({len(active)}) are not the live allocations ({len(live)})")
    for s in d["segments"]:
        if sum(b["size"] for b in s["blocks"]) != s["total_size"]:
            fail(f"segment {s['address']:#x}: blocks do not tile it")
    # backward, as simulate_memory does (segment_map/unmap merge as map_segment/unmap_segment)
    grows = any(e["action"] in ("segment_map", "segment_unmap") for e in tr)
    bsegs = list(merged(final)) if grows else list(final)
    blocks = dict(active)
    for i in range(len(tr) - 1, -1, -1):
        e = tr[i]
        a, act, size = e["addr"], e["action"], e["size"]
        if act == "free_completed":
            blocks[a] = size
        elif act == "alloc":
            del blocks[a]
        elif act == "segment_free":
            bsegs.append((a, size))
        elif act == "segment_unmap":
            bsegs = merged(bsegs + [(a, size)])
        elif act == "segment_alloc":
            bsegs.remove((a, size))
        elif act == "segment_map":
            hit = [r for r in bsegs if r[0] <= a and a + size <= r[0] + r[1]]
            if not hit:
                fail(f"backward, event {i}: segment_map {a:#x} not inside a segment")
            r0, rs = hit[0]
            bsegs.remove(hit[0])
            bsegs += [(r0, a - r0)] if a > r0 else []
            bsegs += [(a + size, r0 + rs - a - size)] if a + size < r0 + rs else []
        if act in ("segment_alloc", "segment_map", "free_completed"):
            for b in blocks:
                if not inside(bsegs, b, 1):
                    fail(f"backward, before event {i}: block {b:#x} in no segment")
    if bsegs or blocks:
        fail(f"backward: {len(bsegs)} segments and {len(blocks)} blocks before the first event")
    figures = {"events": len(tr), "segments_final": len(final), "peak": peak,
               "peak_reserved": peak_reserved, "counts": counts,
               "inactive_bytes": sum(b["size"] for s in d["segments"] for b in s["blocks"]
                                     if b["state"] == "inactive")}
    if len(sys.argv) > 2:
        r = json.load(open(sys.argv[2]))
        # simrd's duplicate copy of a resident output counts in peak_memory for an instant,
        # not in the export (no allocator would keep it)
        ideal = r.get("allocator", "ideal") == "ideal"
        if peak > r["peak_memory"]:
            fail(f"timeline peak {peak} != peak_memory {r['peak_memory']}")
        if not ideal and peak_reserved != r["peak_reserved"]:
            fail(f"reserved peak {peak_reserved} != peak_reserved {r['peak_reserved']}")
    print(json.dumps(figures))


main()
