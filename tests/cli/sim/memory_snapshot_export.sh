#!/usr/bin/env bash
# sim --memory-snapshot: the run as a PyTorch memory snapshot (analysis/memviz.c). Python's own
# pickle.load reads it; only opcodes MemoryViz.js's unpickler knows are used (PROTO 2-4, no
# FRAME needed); every alloc is freed once or live in the final segments, every block lies in
# a segment (the Allocator State History's backward replay needs it); the timeline's peak is
# the run's peak_memory; frames name the op and its phase, evictions and rematerializations
# included; gpumemsim reads it back with no contradiction; swapping policies, several runs
# and a bad path are refused and nothing is written. On the project's samples.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

for model in ideal caching; do
  "$GMS_BIN" sim "$T" --policy dtr --budget 0.5 --allocator "$model" --json \
    --memory-snapshot "run-$model.pickle" > "run-$model.json" || fail "sim $model"
  python3 - "$model" <<'PY' || fail "snapshot of the $model run"
import json, pickle, pickletools, sys
model = sys.argv[1]
raw = open(f"run-{model}.pickle", "rb").read()
known = {"PROTO", "FRAME", "MEMOIZE", "BINPUT", "LONG_BINPUT", "BINGET", "LONG_BINGET", "MARK",
         "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "DICT", "LIST", "TUPLE", "TUPLE1",
         "TUPLE2", "TUPLE3", "SETITEM", "SETITEMS", "APPEND", "APPENDS", "BININT", "BININT1",
         "BININT2", "LONG1", "SHORT_BINUNICODE", "BINUNICODE", "BINFLOAT", "NONE", "NEWTRUE",
         "NEWFALSE", "STOP"}
ops = {op.name for op, arg, pos in pickletools.genops(raw)}
assert ops <= known, ops - known
assert raw[:2] == b"\x80\x04", raw[:2]
d = pickle.loads(raw)
r = json.load(open(f"run-{model}.json"))
tr = d["device_traces"][0]
live, cur, peak, segs = {}, 0, 0, {}
phases = set()
for e in tr:
    assert e["stream"] == 0 and len(e["frames"]) == 1, e
    f = e["frames"][0]
    assert f["name"] and f["filename"] in ("compute", "remat", "evict", "free"), f
    phases.add(f["filename"])
    a = e["action"]
    if a == "segment_alloc":
        assert e["addr"] not in segs; segs[e["addr"]] = e["size"]
    elif a == "segment_free":
        assert segs.pop(e["addr"]) == e["size"]
    elif a == "alloc":
        assert e["addr"] in segs and e["addr"] not in live, e
        live[e["addr"]] = e["size"]; cur += e["size"]; peak = max(peak, cur)
    elif a == "free_completed":
        assert live[e["addr"]] == e["size"]; cur -= live.pop(e["addr"])
assert phases == {"compute", "remat", "evict", "free"}, phases
assert peak == r["peak_memory"], (peak, r["peak_memory"])
final = {s["address"]: s for s in d["segments"]}
assert set(final) == set(segs) == set(live), "final segments are not the live storages"
for a, s in final.items():
    b = s["blocks"]
    assert len(b) == 1 and b[0]["state"] == "active_allocated" and b[0]["size"] == s["total_size"]
    assert b[0]["requested_size"] == live[a]
assert d["allocator_settings"]["gpumemsim_allocator"] == model
PY
  "$GMS_BIN" info "run-$model.pickle" > info.txt 2> info.err || fail "info of the export"
  grep -q "contradictions" info.txt && fail "contradictions: $(cat info.txt)"
  [ -s info.err ] && fail "info warned: $(cat info.err)"
  "$GMS_BIN" memcheck "run-$model.pickle" --cold > mc.txt || fail "memcheck of the export"
done
# the ideal model: one range per storage, kept across rematerializations
python3 - <<'PY' || fail "ideal addresses"
import pickle
tr = pickle.load(open("run-ideal.pickle", "rb"))["device_traces"][0]
seen, remats = {}, 0
for e in tr:
    if e["action"] == "alloc":
        f = e["frames"][0]
        key = (f["name"], f["line"], e["size"])
        if f["filename"] == "remat":
            assert e["addr"] in seen.get(key, ()), key
            remats += 1
        seen.setdefault(key, set()).add(e["addr"])
assert remats > 0
PY

# refusals: nothing written
"$GMS_BIN" sim "$T" --policy swap-lru --budget 0.5 --memory-snapshot swap.pickle > o.txt 2> e.txt &&
  fail "a swapping policy was exported"
grep -q "swapping" e.txt || fail "swap refusal: $(cat e.txt)"
[ -e swap.pickle ] && fail "swap.pickle written"
"$GMS_BIN" sim "$T" --budget 0.5 --seeds 3 --memory-snapshot s.pickle > o.txt 2> e.txt &&
  fail "--seeds with --memory-snapshot"
[ -e s.pickle ] && fail "s.pickle written"
"$GMS_BIN" sim "$T" --budget 0.5 --memory-snapshot - > o.txt 2> e.txt && fail "'-' accepted"
mkdir d
"$GMS_BIN" sim "$T" --budget 0.5 --memory-snapshot d > o.txt 2> e.txt && fail "a folder accepted"
ls d/* .tmp* 2>/dev/null && fail "temporary files left"
# with --perfetto beside it, both files, the trace-event JSON unchanged
"$GMS_BIN" sim "$T" --budget 0.5 --perfetto a.json > /dev/null || fail "perfetto alone"
"$GMS_BIN" sim "$T" --budget 0.5 --perfetto b.json --memory-snapshot b.pickle > /dev/null ||
  fail "perfetto with memory snapshot"
python3 -c "
import json; a = json.load(open('a.json')); b = json.load(open('b.json'))
strip = lambda d: [e for e in d['traceEvents'] if e.get('ph') != 'M']
assert strip(a) == strip(b), 'perfetto output changed'
" || fail "perfetto differs with --memory-snapshot"
[ -s b.pickle ] || fail "b.pickle missing"
echo "ok"
