#!/usr/bin/env bash
# traces/samples/ holds exactly what scripts/make-samples.sh generates (compared event for event
# through the DTR log form, so a different zstd build cannot cause a false alarm), and every
# sample replays under 'gpumemsim sim'.
. "$(dirname "$0")/common.sh"
S=$GMS_SOURCE_DIR/traces/samples
[ -d "$S" ] || fail "missing $S"
GMS_BIN=$GMS_BIN "$GMS_SOURCE_DIR/scripts/make-samples.sh" "$T/gen" >"$T/make.out" ||
  fail "make-samples.sh failed: $(cat "$T/make.out")"
n=0
for f in "$S"/*.gmt; do
  b=$(basename "$f")
  [ -f "$T/gen/$b" ] || fail "$b is committed but make-samples.sh does not make it"
  "$GMS_BIN" convert "$f" --to dtr-log -o "$T/committed-$b.log" -q
  "$GMS_BIN" convert "$T/gen/$b" --to dtr-log -o "$T/gen-$b.log" -q
  cmp -s "$T/committed-$b.log" "$T/gen-$b.log" || fail "$b differs from what make-samples.sh makes"
  grep -q -- "$b" "$S/README.md" || fail "$b is not described in traces/samples/README.md"
  "$GMS_BIN" sim "$f" --budget 0.8 --json >"$T/sim.json"
  jq -e '.status == "ok"' "$T/sim.json" >/dev/null || fail "$b does not replay: $(cat "$T/sim.json")"
  n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "expected at least 4 samples, found $n"
[ "$(ls "$T/gen" | wc -l)" -eq "$n" ] || fail "make-samples.sh makes samples that are not committed: $(ls "$T/gen")"
echo "ok"
