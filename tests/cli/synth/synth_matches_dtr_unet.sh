#!/usr/bin/env bash
# A synthetic U-Net at the configuration of the DTR paper's U-Net log (batch 6, 416x608, Titan V,
# no optimizer step, as the logs have none) has about the recorded baseline memory and compute,
# and the dtr policy pays about the same overhead at half the memory.
. "$(dirname "$0")/common.sh"
: "${GMS_SHARED_DIR:?GMS_SHARED_DIR must point at the shared test data (run through ctest)}"
LOG=$(ls "$GMS_SHARED_DIR"/traces/dtr-iclr21/unet-6-*.log 2>/dev/null | head -1)
[ -f "$LOG" ] || fail "missing the DTR U-Net log under $GMS_SHARED_DIR/traces/dtr-iclr21"
"$GMS_BIN" synth -q --model unet --batch 6 --image 416x608 --gpu titanv --optimizer none -o "$T/unet.gmt"
"$GMS_BIN" info --json "$LOG" >"$T/real.json"
"$GMS_BIN" info --json "$T/unet.gmt" >"$T/synth.json"
# within: NAME A B TOL -> |A/B - 1| <= TOL
within() { awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN { r = a / b - 1; if (r < 0) r = -r; exit !(r <= t) }' ||
  fail "$1: synthetic $2 vs recorded $3 differ by more than $4"; }
within "baseline memory" "$(jq .baseline_memory "$T/synth.json")" "$(jq .baseline_memory "$T/real.json")" 0.10
within "baseline compute" "$(jq .baseline_compute "$T/synth.json")" "$(jq .baseline_compute "$T/real.json")" 0.25
"$GMS_BIN" sim "$LOG" --budget 0.5 --policy dtr --json >"$T/real-sim.json"
"$GMS_BIN" sim "$T/unet.gmt" --budget 0.5 --policy dtr --json >"$T/synth-sim.json"
for f in real-sim synth-sim; do
  jq -e '.status == "ok" and .overhead > 1.0 and .overhead < 1.3' "$T/$f.json" >/dev/null ||
    fail "$f: dtr at 0.5: $(cat "$T/$f.json")"
done
echo "ok"
