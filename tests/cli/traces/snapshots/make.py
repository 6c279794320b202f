#!/usr/bin/env python3
"""Hand-made PyTorch memory snapshots for the snapshot tests, written by Python's pickle.

Each is the smallest snapshot that pins one rule (docs/memory.md). Addresses, sizes and the
final segments are worked out by hand from the caching allocator's rules: requests round up
to 512 bytes; a free block of the large pool is split when more than 1 MiB is left; the small
pool (requests up to 1 MiB) lives in 2 MiB segments and splits any rest of 512 bytes or more.
Usage: make.py OUTDIR
"""
import collections
import gzip
import os
import pickle
import sys

out = sys.argv[1]
MiB = 1 << 20
S1, S2 = 0x7F0010000000, 0x7F0020000000
USER = [{"name": "forward", "filename": "/home/u/model.py", "line": 42},
        {"name": "train_step", "filename": "/home/u/train.py", "line": 7}]
ALLOC_INTERNAL = [{"name": "c10::cuda::CUDACachingAllocator::malloc", "filename": "", "line": 0}]


def ev(action, addr, size, stream=0, frames=()):
    return {"action": action, "addr": addr, "size": size, "stream": stream,
            "time_us": 1, "frames": ALLOC_INTERNAL + list(frames)}


def seg(addr, size, blocks, small=False, stream=0, pool=(0, 0)):
    bl, at = [], addr
    for size_b, req, state in blocks:
        bl.append({"address": at, "size": size_b, "requested_size": req, "state": state,
                   "frames": []})
        at += size_b
    assert at == addr + size, "blocks must tile the segment"
    return {"device": 0, "address": addr, "total_size": size, "stream": stream,
            "segment_type": "small" if small else "large", "segment_pool_id": pool,
            "is_expandable": False, "frames": [], "blocks": bl}


def dump(name, d, opener=open):
    with opener(os.path.join(out, name), "wb") as f:
        pickle.dump(d, f, protocol=4)


settings = {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
            "garbage_collection_threshold": 0.0, "expandable_segments": False,
            "roundup_power2_divisions": {str(1 << i): 0 for i in range(16)}}

# exact.pickle: a 20 MiB segment held a 5 MiB block before the recording (freed in the trace
# without being allocated in it); then 3 MiB reuses the start of the merged 20 MiB block; a
# new 2 MiB small segment takes 1000 B (a 1024 B block) and 700000 B (700416 B) after it.
c_size = (700000 + 511) // 512 * 512
events = [ev("free_requested", S1, 5 * MiB), ev("free_completed", S1, 5 * MiB),
          ev("alloc", S1, 3 * MiB, frames=USER),
          ev("segment_alloc", S2, 2 * MiB), ev("alloc", S2, 1000),
          ev("alloc", S2 + 1024, 700000, frames=USER)]
final = [seg(S1, 20 * MiB, [(3 * MiB, 3 * MiB, "active_allocated"),
                            (17 * MiB, 0, "inactive")]),
         seg(S2, 2 * MiB, [(1024, 1000, "active_allocated"),
                           (c_size, 700000, "active_allocated"),
                           (2 * MiB - 1024 - c_size, 0, "inactive")], small=True)]
exact = {"segments": final, "device_traces": [events], "allocator_settings": settings}
dump("exact.pickle", exact)
dump("exact.pickle.gz", exact, gzip.open)

# diverge.pickle: the same, but the real allocator put the 700000 B request 1 MiB into the
# small segment, where best fit (right after the first block) would not: the model parts
# from reality at event 5, whose stack names model.py:42.
events_d = events[:5] + [ev("alloc", S2 + MiB, 700000, frames=USER)]
final_d = [final[0], seg(S2, 2 * MiB, [(1024, 1000, "active_allocated"),
                                       (MiB - 1024, 0, "inactive"),
                                       (c_size, 700000, "active_allocated"),
                                       (MiB - c_size, 0, "inactive")], small=True)]
dump("diverge.pickle", {"segments": final_d, "device_traces": [events_d],
                        "allocator_settings": settings})

# unmodelled.pickle: two streams, a CUDA-graph pool and a GC threshold: named, not dropped.
gc = dict(settings, garbage_collection_threshold=0.6)
final_u = [final[0], seg(S2, 2 * MiB, [(2 * MiB, 0, "inactive")], small=True, stream=7,
                         pool=(1, 0))]
events_u = [ev("alloc", S1 + 3 * MiB, 4 * MiB, stream=0), ev("free_completed", S1 + 3 * MiB,
                                                              4 * MiB, stream=0)]
dump("unmodelled.pickle", {"segments": final_u, "device_traces": [events_u],
                           "allocator_settings": gc})

# oom.pickle: exact.pickle's events, then a 30 MiB request the device could not hold with
# 12 MiB free (PyTorch's oom entry: device_free instead of addr).
oom_ev = {"action": "oom", "device_free": 12 * MiB, "size": 30 * MiB, "stream": 0,
          "time_us": 2, "frames": ALLOC_INTERNAL + USER}
dump("oom.pickle", dict(exact, device_traces=[events + [oom_ev]]))

# expandable.pickle: expandable segments map pages at a segment's end (the final segments
# list each mapped range as one): a large-pool range mapped 20 MiB at a time with two blocks,
# its last 20 MiB unmapped again, and a range mapped and unmapped whole. Undone by ranges,
# the state before the first event is empty. expandable-bad.pickle: the final segment holds
# 20 MiB only, so the second map is a contradiction.
X = 0x7F0040000000
xev = [ev("segment_map", X, 20 * MiB), ev("alloc", X, 12 * MiB, frames=USER),
       ev("segment_map", X + 20 * MiB, 20 * MiB), ev("alloc", X + 12 * MiB, 16 * MiB),
       ev("segment_map", X + 40 * MiB, 20 * MiB), ev("segment_unmap", X + 40 * MiB, 20 * MiB),
       ev("segment_map", X + 100 * MiB, 20 * MiB), ev("segment_unmap", X + 100 * MiB, 20 * MiB)]
xsettings = dict(settings, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True",
                 expandable_segments=True)
xseg = dict(seg(X, 40 * MiB, [(12 * MiB, 12 * MiB, "active_allocated"),
                              (16 * MiB, 16 * MiB, "active_allocated"),
                              (12 * MiB, 0, "inactive")]), is_expandable=True)
dump("expandable.pickle", {"segments": [xseg], "device_traces": [xev],
                           "allocator_settings": xsettings})
xbad = dict(seg(X, 20 * MiB, [(12 * MiB, 12 * MiB, "active_allocated"),
                              (8 * MiB, 0, "inactive")]), is_expandable=True)
dump("expandable-bad.pickle", {"segments": [xbad], "device_traces": [xev[:3]],
                               "allocator_settings": xsettings})

# oldformat.pickle: no allocator_settings, blocks without addresses (older PyTorch)
old = {"segments": [dict(final[0], blocks=[{k: v for k, v in b.items() if k != "address"}
                                           for b in final[0]["blocks"]])],
       "device_traces": [[ev("alloc", S1, 3 * MiB)]]}
old["segments"][0]["blocks"][0]["state"] = "active_allocated"
dump("oldformat.pickle", old)

# bad input
with open(os.path.join(out, "exact.pickle"), "rb") as f:
    data = f.read()
with open(os.path.join(out, "truncated.pickle"), "wb") as f:
    f.write(data[: len(data) // 2])
dump("code.pickle", collections.OrderedDict(segments=[]))
dump("nokeys.pickle", {"segments": final})
bad_ev = [dict(e) for e in events]
del bad_ev[2]["addr"]
dump("noaddr.pickle", {"segments": final, "device_traces": [bad_ev]})
gap = [dict(final[0], total_size=21 * MiB)] + final[1:]
dump("notiling.pickle", {"segments": gap, "device_traces": [events]})
dump("alist.pickle", [1, 2, 3])
