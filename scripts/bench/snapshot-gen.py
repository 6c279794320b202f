#!/usr/bin/env python3
"""Writes a synthetic PyTorch memory snapshot of N allocator events (scripts/bench/snapshot.sh).

Shaped like the real ones in ../shared/traces/pytorch-snapshots: one device, one stream, the
events' stacks drawn from a few hundred distinct frame lists (the real allocator hands out the
same frame dicts again, so pickle memoizes them), final segments consistent with the events.
Usage: snapshot-gen.py N OUT.pickle
"""
import pickle
import random
import sys

n, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(1)
frame_pool = [{"name": f"fn{i}", "filename": f"/src/model/layer{i % 40}.py", "line": i}
              for i in range(2000)]
stacks = [[rng.choice(frame_pool) for _ in range(rng.randint(10, 60))] for _ in range(300)]
seg_size = 4 << 30
base = 0x7F0000000000
sizes = [512, 4096, 1 << 20, 3 << 20, 8 << 20]
spare = {sz: [] for sz in sizes}  # freed addresses by size: reused first, as a cache would
events, live, nxt, t = [], {}, 0, 1_700_000_000_000_000
while len(events) < n:
    t += rng.randint(1, 50)
    if live and (rng.random() < 0.5 or len(live) >= 200):
        addr = rng.choice(list(live))
        size = live.pop(addr)
        spare[size].append(addr)
        fr = rng.choice(stacks)
        for act in ("free_requested", "free_completed"):
            events.append({"action": act, "addr": addr, "size": size, "stream": 0,
                           "time_us": t, "frames": fr, "compile_context": "N/A",
                           "user_metadata": ""})
        continue
    size = rng.choice(sizes)
    if spare[size]:
        addr = spare[size].pop()
    else:
        addr = base + nxt
        nxt += size
        assert nxt <= seg_size
    live[addr] = size
    events.append({"action": "alloc", "addr": addr, "size": size, "stream": 0, "time_us": t,
                   "frames": rng.choice(stacks), "compile_context": "N/A", "user_metadata": ""})
events = events[:n]
blocks, at = [], 0
for addr in sorted(live):
    if addr - base > at:
        blocks.append({"address": base + at, "size": addr - base - at, "requested_size": 0,
                       "state": "inactive", "frames": []})
    blocks.append({"address": addr, "size": live[addr], "requested_size": live[addr],
                   "state": "active_allocated", "frames": []})
    at = addr - base + live[addr]
blocks.append({"address": base + at, "size": seg_size - at, "requested_size": 0,
               "state": "inactive", "frames": []})
seg = {"device": 0, "address": base, "total_size": seg_size, "stream": 0,
       "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
       "frames": [], "blocks": blocks}
with open(out, "wb") as f:
    pickle.dump({"segments": [seg], "device_traces": [events], "allocator_settings": {}}, f,
                protocol=4)
