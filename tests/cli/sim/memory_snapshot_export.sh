#!/usr/bin/env bash
# sim --memory-snapshot: the run as a PyTorch memory snapshot (analysis/memviz.c). Python's own
# pickle.load reads it; only opcodes MemoryViz.js's unpickler knows are used (PROTO 2-4, no
# FRAME needed); the trace and the final segments agree forward and backward (memviz_check.py:
# the Allocator State History's backward replay needs it); the timeline's peak is the run's
# peak_memory; frames name the op and its phase, evictions and rematerializations included.
# The ideal model: one segment per storage. The caching model: its own segments (cached free
# blocks in them, reserved peak = peak_reserved), so that memcheck's exact check of its own
# export places every allocation where the run did; expandable segments map and unmap.
# Swapping runs (swap-lru, hybrid-mix, capuchin): swap-outs free and swap-ins allocate again.
# gpumemsim reads it back with no contradiction; several runs and a bad path are refused and
# nothing is written. On the project's samples.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

CHECK="$GMS_SOURCE_DIR/tests/cli/sim/memviz_check.py"
for model in ideal caching; do
  "$GMS_BIN" sim "$T" --policy dtr --budget 0.5 --allocator "$model" --json \
    --memory-snapshot "run-$model.pickle" > "run-$model.json" || fail "sim $model"
  python3 "$CHECK" "run-$model.pickle" "run-$model.json" > "fig-$model.json" ||
    fail "snapshot of the $model run"
  python3 - "$model" <<'PY' || fail "frames of the $model run"
import pickle, sys
model = sys.argv[1]
d = pickle.load(open(f"run-{model}.pickle", "rb"))
phases = {e["frames"][0]["filename"] for e in d["device_traces"][0]}
assert {"compute", "remat", "evict", "free"} <= phases, phases
assert d["allocator_settings"]["gpumemsim_allocator"] == model
PY
  "$GMS_BIN" info "run-$model.pickle" > info.txt 2> info.err || fail "info of the export"
  grep -q "contradictions" info.txt && fail "contradictions: $(cat info.txt)"
  [ -s info.err ] && fail "info warned: $(cat info.err)"
  "$GMS_BIN" memcheck "run-$model.pickle" --cold > mc.txt || fail "memcheck of the export"
done
# the ideal model: one segment per storage, exactly its block
python3 - <<'PY' || fail "ideal segments"
import pickle
d = pickle.load(open("run-ideal.pickle", "rb"))
for s in d["segments"]:
    assert len(s["blocks"]) == 1 and s["blocks"][0]["size"] == s["total_size"], s
    assert s["blocks"][0]["state"] == "active_allocated"
tr = d["device_traces"][0]
assert sum(e["action"] == "segment_alloc" for e in tr) == sum(e["action"] == "alloc" for e in tr)
PY
# the caching model: its own segments (2 MiB small-pool ones, 20 MiB or larger large-pool
# ones), cached free blocks in them, and as many segment_alloc events as it reserved
python3 - <<'PY' || fail "caching segments"
import json, pickle
d = pickle.load(open("run-caching.pickle", "rb"))
f = json.load(open("fig-caching.json"))
tr = d["device_traces"][0]
allocs = sum(e["action"] == "alloc" for e in tr)
segallocs = sum(e["action"] == "segment_alloc" for e in tr)
assert 0 < segallocs < allocs // 10, (segallocs, allocs)
assert len(d["segments"]) < sum(len(s["blocks"]) for s in d["segments"])
assert f["inactive_bytes"] > 0, f
for s in d["segments"]:
    assert s["total_size"] == 2 << 20 or s["total_size"] >= 10 << 20, s["total_size"]
    assert (s["segment_type"] == "small") == (s["total_size"] == 2 << 20), s
    assert {b["state"] for b in s["blocks"]} <= {"active_allocated", "inactive"}
PY
# unlimited by the budget, the caching model replaying its own export places every
# allocation where the run did (memcheck's exact check)
"$GMS_BIN" sim "$T" --policy dtr --budget 1.0 --allocator caching --json \
  --memory-snapshot full.pickle > full.json || fail "sim caching at budget 1"
python3 "$CHECK" full.pickle full.json > /dev/null || fail "snapshot of the caching run at 1"
"$GMS_BIN" memcheck full.pickle > mc.txt || fail "memcheck of the caching export"
grep -q "placement .* (100.00%)" mc.txt || fail "placement: $(cat mc.txt)"
grep -q "first divergence   none" mc.txt || fail "divergence: $(cat mc.txt)"
# expandable segments (segment_map/segment_unmap) and the lifetime pool's one arena
"$GMS_BIN" sim "$T" --policy dtr --budget 0.5 --allocator caching \
  --alloc-conf expandable_segments:True --json --memory-snapshot exp.pickle > exp.json ||
  fail "sim expandable"
python3 "$CHECK" exp.pickle exp.json > fig-exp.json || fail "snapshot of the expandable run"
grep -q '"segment_map"' fig-exp.json || fail "no segment_map: $(cat fig-exp.json)"
"$GMS_BIN" sim "$T" --policy dtr --budget 0.5 --allocator lifetime --json \
  --memory-snapshot life.pickle > life.json || fail "sim lifetime"
python3 "$CHECK" life.pickle life.json > /dev/null || fail "snapshot of the lifetime run"
# gpumemsim's import undoes segment_map/segment_unmap by ranges: no contradiction
for f in exp life; do
  "$GMS_BIN" info "$f.pickle" > info.txt 2> info.err || fail "info $f"
  grep -q "contradictions" info.txt && fail "$f contradictions: $(cat info.txt)"
  grep -q "before 1st event   0 segments" info.txt || fail "$f start: $(cat info.txt)"
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

# the timeline's peak is the run's (dtr at 0.5 on the ideal model: no duplicate copy peaks)
python3 -c "
import json; f = json.load(open('fig-ideal.json')); r = json.load(open('run-ideal.json'))
assert f['peak'] == r['peak_memory'], (f['peak'], r['peak_memory'])" || fail "ideal peak"
# swapping runs: a swap-out frees the device bytes when its copy ends, a swap-in allocates
# them again, at the storage's own range; frames say which
S="$GMS_SOURCE_DIR/traces/samples"
for run in swap-lru:unet-small:0.3 hybrid-mix:resnet-vary:0.5 capuchin:unet-small:0.3; do
  IFS=: read -r p tr b <<< "$run"
  "$GMS_BIN" sim "$S/$tr.gmt" --policy "$p" --budget "$b" --json --memory-snapshot "$p.pickle" \
    > "$p.json" 2> e.txt || fail "sim $p: $(cat e.txt)"
  python3 "$CHECK" "$p.pickle" "$p.json" > /dev/null || fail "snapshot of the $p run"
  python3 - "$p" <<'PY' || fail "swaps of the $p run"
import json, pickle, sys
p = sys.argv[1]
r = json.load(open(f"{p}.json"))["swap"]
tr = pickle.load(open(f"{p}.pickle", "rb"))["device_traces"][0]
outs = [e for e in tr if e["action"] == "free_completed" and e["frames"][0]["filename"] == "swap-out"]
ins = [e for e in tr if e["action"] == "alloc" and e["frames"][0]["filename"] == "swap-in"]
assert r["swaps_in"] > 0 and len(ins) == r["swaps_in"], (len(ins), r)
assert 0 < len(outs) <= r["swaps_out"], (len(outs), r)
assert {e["addr"] for e in ins} <= {e["addr"] for e in outs}, "a swap-in at a new range"
PY
done
# refusals: nothing written
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
