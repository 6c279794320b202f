#!/usr/bin/env bash
# PyTorch memory snapshots, one rule per hand-made snapshot (snapshots/make.py, written by
# Python's pickle): info reconstructs the state before the first event (a block freed without
# being allocated, a segment the trace reserved); memcheck's exact check places every
# allocation where the real allocator did, names the first event where they part with its
# user frames, refuses the exact check and warns for what it cannot model; gzip reads as
# plain; bad input (truncated, code, missing keys, blocks that do not tile, not a dict) is one
# clear line, exit 1, nothing on stdout.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
python3 "$GMS_SOURCE_DIR/tests/cli/traces/snapshots/make.py" . || fail "make.py"
has() { grep -Fq -- "$2" "$1" || fail "$1 lacks '$2': $(cat "$1")"; }

# info: the state before the first event
"$GMS_BIN" info exact.pickle > info.txt 2> info.err || fail "info exact: $(cat info.err)"
has info.txt "alloc 3, free_requested 1, free_completed 1, segment_alloc 1"
has info.txt "2 segments (1 small-pool), reserved 22.00 MiB, 3 active blocks"
has info.txt "before 1st event   1 segments, reserved 20.00 MiB, 1 live blocks, allocated 5.00 MiB (1 freed"
[ -s info.err ] && fail "info exact warned: $(cat info.err)"
"$GMS_BIN" info exact.pickle --json > info.json || fail "info --json"
python3 - <<'PY' || fail "info --json fields"
import json
d = json.load(open("info.json"))
assert d["format"] == "pytorch-snapshot", d
dev = d["devices"][0]
assert dev["events_by_action"] == {"alloc": 3, "free_requested": 1, "free_completed": 1,
                                   "segment_alloc": 1}, dev
b = dev["before_first_event"]
assert (b["segments"], b["live_blocks"], b["freed_without_alloc"], b["allocated"]) == \
    (1, 1, 1, 5 << 20), b
assert d["allocator_settings"]["max_split_size"] == -1
PY
# expandable segments: segment_map/segment_unmap undone by address ranges
"$GMS_BIN" info expandable.pickle > x.txt 2> x.err || fail "info expandable: $(cat x.err)"
has x.txt "alloc 2, segment_map 4, segment_unmap 2"
has x.txt "before 1st event   0 segments, reserved 0 B, 0 live blocks"
grep -q contradictions x.txt && fail "expandable contradictions: $(cat x.txt)"
"$GMS_BIN" info expandable-bad.pickle > x.txt 2> x.err || fail "info expandable-bad"
has x.txt "event 2: segment_map of a range no segment at the end holds and not unmapped later"
"$GMS_BIN" info exact.pickle.gz > gz.txt || fail "info gz"
diff <(sed 1d info.txt) <(sed 1d gz.txt) >/dev/null || fail "gzip reads differently"

# memcheck: exact everywhere
"$GMS_BIN" memcheck exact.pickle > exact.txt 2> exact.err || fail "memcheck exact"
has exact.txt "3 of 3 allocations at the real segment and offset (100.00%)"
has exact.txt "reserved equal     after 4 of 4 allocs and frees; segments reserved during the trace: real 1, model 1"
has exact.txt "live blocks at the same place and size 3 of 3"
has exact.txt "first divergence   none"
has exact.txt "peak reserved      predicted 22.00 MiB, real 22.00 MiB (+0.000%)"

# memcheck: the first divergence with the user's frames, not the allocator's
"$GMS_BIN" memcheck diverge.pickle > div.txt || fail "memcheck diverge"
has div.txt "2 of 3 allocations"
has div.txt "first divergence   the model placed this allocation of 700000 bytes at 0x7f0020000400, the real allocator at 0x7f0020100000"
has div.txt "event 5: alloc of 683.59 KiB at 0x7f0020100000"
has div.txt "forward  model.py:42"
grep -q "CUDACachingAllocator" div.txt && fail "allocator frames shown: $(cat div.txt)"

# what cannot be modelled is named, and the exact check is not run
"$GMS_BIN" memcheck unmodelled.pickle > un.txt 2> un.err || fail "memcheck unmodelled"
has un.err "warning: device 0: several streams"
has un.err "CUDA-graph private pools"
has un.err "garbage_collection_threshold:0.6"
has un.txt "exact check          not run"
"$GMS_BIN" info unmodelled.pickle > /dev/null 2> uni.err || fail "info unmodelled"
has uni.err "several streams"

# an older PyTorch's snapshot (no settings, blocks without addresses)
"$GMS_BIN" memcheck oldformat.pickle > old.txt || fail "memcheck oldformat"
has old.txt "1 of 1 allocations at the real segment and offset"
"$GMS_BIN" info oldformat.pickle > oldi.txt || fail "info oldformat"
has oldi.txt "not recorded"

# what-ifs: one row per setting beside the recorded one; --device-memory names the event
# that would not fit (the 2 MiB small segment of event 4 passes 21 MiB)
"$GMS_BIN" memcheck exact.pickle --alloc-conf expandable_segments:True \
  --alloc-conf "roundup_power2_divisions:[1:2,>:4]" --device-memory 21MiB > wi.txt 2> wi.err ||
  fail "what-if: $(cat wi.err)"
has wi.txt "caching (as recorded)"
has wi.txt "expandable_segments:True"
has wi.txt "roundup_power2_divisions:[1:2,>:4]"
[ "$(grep -c 'at event 4$' wi.txt)" -eq 3 ] || fail "what-if OOMs: $(cat wi.txt)"
has wi.txt "caching (as recorded): out of memory with 20.00 MiB reserved of 21.00 MiB at"
has wi.txt "real peak reserved: 22.00 MiB"
"$GMS_BIN" memcheck exact.pickle --alloc-conf expandable_segments:True > wi2.txt || fail "what-if"
grep -q "OOM" wi2.txt && fail "an OOM column without --device-memory: $(cat wi2.txt)"
has wi2.txt "+0.00%"
for conf in bogus:1 roundup_power2_divisions:3 garbage_collection_threshold:1.5 \
            expandable_segments:True,garbage_collection_threshold:0.5; do
  "$GMS_BIN" memcheck exact.pickle --alloc-conf "$conf" > bad.out 2> bad.err &&
    fail "--alloc-conf $conf accepted"
  [ -s bad.out ] && fail "--alloc-conf $conf printed: $(cat bad.out)"
  [ "$(wc -l < bad.err)" -eq 1 ] || fail "--alloc-conf $conf: $(cat bad.err)"
done
"$GMS_BIN" memcheck exact.pickle --device-memory lots > bad.out 2> bad.err && fail "--device-memory lots"

# bad input: one clear line, exit 1, nothing on stdout
bad() { # FILE REGEX
  for cmd in info memcheck; do
    "$GMS_BIN" $cmd "$1" > bad.out 2> bad.err && fail "$cmd $1 succeeded"
    [ -s bad.out ] && fail "$cmd $1 printed: $(cat bad.out)"
    [ "$(wc -l < bad.err)" -eq 1 ] || fail "$cmd $1: not one line: $(cat bad.err)"
    grep -Eq -- "$2" bad.err || fail "$cmd $1: '$(cat bad.err)' does not match /$2/"
  done
}
bad truncated.pickle "truncated.pickle: byte [0-9]+: the pickle ends before its STOP opcode"
bad code.pickle "code.pickle: byte [0-9]+: opcode STACK_GLOBAL \(0x93\) is not read"
bad nokeys.pickle "no 'device_traces' list"
bad noaddr.pickle "device 0 event 2 \(alloc\) has no 'addr'"
bad notiling.pickle "segment 0: its blocks cover 20971520 bytes of its 22020096: blocks must tile"
bad alist.pickle "the pickle holds a list, not a dict"
# commands that replay ops say what a snapshot is and where it is read
"$GMS_BIN" sim exact.pickle --budget 0.5 > o.out 2> o.err && fail "sim took a snapshot"
has o.err "a PyTorch memory snapshot?"
has o.err "gpumemsim memcheck"
# options that do not apply
"$GMS_BIN" memcheck exact.pickle --allocator lifetime > o.out 2> o.err &&
  fail "--allocator on a snapshot"
has o.err "PyTorch memory snapshot"
"$GMS_BIN" info exact.pickle --ops > o.out 2> o.err && fail "--ops on a snapshot"
echo "ok"
