#!/usr/bin/env bash
# Real torch 2.11 snapshots recorded on an H200 (tests/data/pytorch-snapshots-h200, README):
# info and memcheck read all three with no warning and no contradiction (nothing in torch
# 2.11's format is rejected); the default one's exact check puts all 141 allocations at the
# real place, reserved bytes equal throughout and at the end, with torch's own
# max_memory_reserved as the peak; the expandable one's segment_map events are undone by
# ranges (no contradiction), it replays cold to torch's peak; the oom one's recorded OOM is
# shown with the device's free bytes (74.51 GiB, as torch's message said), and the cached
# segments given back before it are given back by the model too (14 segments at the end).
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
D="$GMS_SOURCE_DIR/tests/data/pytorch-snapshots-h200"
has() { grep -Fq -- "$2" "$1" || fail "$1 lacks '$2': $(cat "$1")"; }

for f in default expandable oom; do
  "$GMS_BIN" info "$D/real-$f.pickle.gz" > "info-$f.txt" 2> err.txt || fail "info $f: $(cat err.txt)"
  [ -s err.txt ] && fail "info $f warned: $(cat err.txt)"
  grep -q "contradictions" "info-$f.txt" && fail "info $f: $(cat "info-$f.txt")"
  "$GMS_BIN" memcheck "$D/real-$f.pickle.gz" > "mc-$f.txt" 2> err.txt || fail "memcheck $f"
  [ -s err.txt ] && fail "memcheck $f warned: $(cat err.txt)"
  "$GMS_BIN" memcheck "$D/real-$f.pickle.gz" --json > "mc-$f.json" || fail "memcheck --json $f"
done
has info-default.txt "378: alloc 141, free_requested 111, free_completed 111, segment_alloc 15"
has info-expandable.txt "segment_map 16"
has info-expandable.txt "expandable_segments True"
has info-oom.txt "segment_free 3, oom 1"
python3 - <<'PY' || fail "memcheck figures"
import json
d = json.load(open("mc-default.json"))
e = d["exact"]
assert e["run"] and e["allocations"] == e["placed_same"] == 141, e
assert e["reserved_equal"] == e["checks"] == 252 and e["first_divergence"] is None, e
end = e["end"]
assert end["segments_real"] == end["segments_model"] == 15, end
assert end["reserved_real"] == end["reserved_model"] == 562036736, end  # torch's max_reserved
assert end["live_blocks_same"] == end["live_blocks"] == 30, end
assert d["cold_start"]["peak_reserved_predicted"] == 562036736, d["cold_start"]

x = json.load(open("mc-expandable.json"))
assert x["exact"] == {"run": False, "why": "expandable segments cannot be seeded yet"}, x["exact"]
assert x["before_first_event"]["segments"] == 0, x["before_first_event"]
assert x["cold_start"]["peak_reserved_predicted"] == 528482304 == \
    x["cold_start"]["peak_reserved_real"], x["cold_start"]

o = json.load(open("mc-oom.json"))
[r] = o["recorded_ooms"]
assert r["size"] == 256 << 30 and r["device_free"] == 80007528448, r  # 74.51 GiB
assert any(f["filename"].endswith("record_snap.py") for f in r["frames"]), r["frames"]
e = o["exact"]
assert e["placed_same"] == e["allocations"] == 110 and e["first_divergence"] is None, e
assert e["end"]["segments_real"] == e["end"]["segments_model"] == 14, e["end"]
assert e["end"]["reserved_real"] == e["end"]["reserved_model"], e["end"]
assert o["cold_start"]["peak_reserved_predicted"] == 69415731200, o["cold_start"]
PY
"$GMS_BIN" memcheck "$D/real-oom.pickle.gz" --alloc-conf expandable_segments:True > w.txt ||
  fail "what-if on the oom snapshot"
has w.txt "the first at event 290 (a request of 256.00 GiB with 74.51 GiB free on the device)"
echo ok
