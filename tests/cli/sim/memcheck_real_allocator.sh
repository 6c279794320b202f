#!/usr/bin/env bash
# The caching model against the real allocator: the shared V100 Kineto trace records, after
# each of its CUDA memory events, the allocator's own Total Allocated and Total Reserved.
# Replayed through 'caching', allocated bytes equal Total Allocated after every event, and
# reserved bytes are within 2% of Total Reserved at the recorded peak and after at least 95%
# of the events (docs/memory.md).
set -u
: "${GMS_BIN:?}" "${GMS_SHARED_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
K="$GMS_SHARED_DIR/traces/kineto-memory/v100_training_memory_kineto.json.gz"
[ -f "$K" ] || fail "no $K"
out=$("$GMS_BIN" memcheck "$K" --json) || fail "memcheck"
echo "$out" | jq -e '.events == 26770' >/dev/null || fail "events: $out"
echo "$out" | jq -e '.allocated_equal == .events' >/dev/null || fail "allocated: $out"
echo "$out" | jq -e '.reserved_within_2pct_share >= 0.95' >/dev/null || fail "reserved share: $out"
echo "$out" | jq -e '(.reserved_rel_error_at_recorded_peak | fabs) <= 0.02' >/dev/null \
  || fail "reserved at the peak: $out"
"$GMS_BIN" info "$K" | grep -q "recorded_peak_reserved *12782141440" || fail "info peaks"
echo "ok"
