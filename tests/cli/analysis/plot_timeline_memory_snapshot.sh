#!/usr/bin/env bash
# plot timeline --memory-snapshot writes the charted run as a PyTorch memory snapshot, the same
# file sim --memory-snapshot writes for that run (the same writer), consistent as memory_viz
# replays it (tests/cli/sim/memviz_check.py), swapping runs included; the chart is unchanged
# by it. A checkmate
# schedule and an unwritable path are refused with no chart and no snapshot left.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
CHECK="$GMS_SOURCE_DIR/tests/cli/sim/memviz_check.py"
for a in ideal caching; do
  "$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 0.6 --allocator "$a" -o "p-$a.svg" \
    --memory-snapshot "p-$a.pickle" 2> err.txt || fail "plot timeline $a: $(cat err.txt)"
  [ -s "p-$a.pickle" ] || fail "no snapshot for $a"
  "$GMS_BIN" sim "$UNET" --policy dtr --budget 0.6 --allocator "$a" --json \
    --memory-snapshot "s-$a.pickle" > "s-$a.json" || fail "sim $a"
  cmp -s "p-$a.pickle" "s-$a.pickle" || fail "plot's $a snapshot differs from sim's"
  python3 "$CHECK" "p-$a.pickle" "s-$a.json" > /dev/null || fail "snapshot of the $a run"
  "$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 0.6 --allocator "$a" -o "q-$a.svg" ||
    fail "plot timeline $a without a snapshot"
  cmp -s "p-$a.svg" "q-$a.svg" || fail "the $a chart changed with --memory-snapshot"
done
# a swapping run: its swap-outs and swap-ins are in the snapshot too
"$GMS_BIN" plot timeline "$UNET" --policy swap-lru --budget 0.3 -o sw.svg \
  --memory-snapshot sw.pickle 2> err.txt || fail "swap-lru: $(cat err.txt)"
"$GMS_BIN" sim "$UNET" --policy swap-lru --budget 0.3 --json > sw.json || fail "sim swap-lru"
python3 "$CHECK" sw.pickle sw.json > /dev/null || fail "snapshot of the swap-lru run"
python3 -c "
import pickle
tr = pickle.load(open('sw.pickle', 'rb'))['device_traces'][0]
assert any(e['frames'][0]['filename'] == 'swap-in' for e in tr)" || fail "no swap-in"
"$GMS_BIN" plot timeline "$UNET" --policy checkmate --budget 0.6 -o ck.svg \
  --memory-snapshot ck.pickle 2> err.txt && fail "checkmate exported"
grep -q "memory-snapshot" err.txt || fail "checkmate refusal: $(cat err.txt)"
[ -e ck.svg ] || [ -e ck.pickle ] && fail "a refused run left a file"
mkdir dir.pickle
"$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 0.6 -o d.svg \
  --memory-snapshot dir.pickle 2> err.txt && fail "a folder accepted"
[ -e d.svg ] && fail "the chart written although the snapshot failed"
"$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 0.6 -o d.svg --memory-snapshot - \
  2> err.txt && fail "'-' accepted"
grep -q "give a file name" err.txt || fail "'-' refusal: $(cat err.txt)"
echo ok
