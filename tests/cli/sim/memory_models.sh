#!/usr/bin/env bash
# End-to-end: memory models in sim, sweep and info, on the project's own samples (no shared
# data): the allocator is reported and stored, the budget caps reserved bytes, address-aware
# policies need a model with addresses, bad names and settings are refused, and a Kineto
# trace without memory events or with a damaged gzip stream is an error, never a trace.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
T="$GMS_SOURCE_DIR/traces/samples/transformer-small.gmt"

# sim: the model, its figures, the budget
out=$("$GMS_BIN" sim "$T" --policy dtr --budget 0.8 --allocator caching --json) || fail "sim caching"
echo "$out" | jq -e '.allocator == "caching"' >/dev/null || fail "allocator not reported: $out"
echo "$out" | jq -e '.peak_reserved <= .budget and .peak_allocated <= .peak_reserved' \
  >/dev/null || fail "reserved over the budget or allocated over reserved: $out"
ideal=$("$GMS_BIN" sim "$T" --policy dtr --budget 0.8 --json)
echo "$ideal" | jq -e '.allocator == "ideal" and .peak_reserved == .peak_memory' >/dev/null \
  || fail "ideal run: $ideal"
out=$("$GMS_BIN" sim "$T" --budget 0.8 --allocator caching --alloc-conf max_split_size_mb:64 --json)
echo "$out" | jq -e '.allocator == "caching{max_split_size_mb:64}"' >/dev/null \
  || fail "settings not in the allocator key: $out"
"$GMS_BIN" sim "$T" --budget 0.8 --allocator lifetime | grep -q "^peak reserved" \
  || fail "text report without reserved bytes"

# refusals
out=$("$GMS_BIN" sim "$T" --allocator cnmem 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "valid allocators: ideal, caching, lifetime" \
  || fail "unknown allocator: rc $rc: $out"
out=$("$GMS_BIN" sim "$T" --policy coop --budget 0.8 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "add --allocator caching" || fail "coop with ideal: rc $rc: $out"
out=$("$GMS_BIN" sim "$T" --allocator caching --alloc-conf max_split_size_mb:5 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "at least 20" || fail "small max_split_size_mb: rc $rc: $out"
out=$("$GMS_BIN" sim "$T" --alloc-conf max_split_size_mb:64 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "ideal model has none" || fail "settings for ideal: rc $rc: $out"
"$GMS_BIN" sim "$T" --policy coop --budget 0.8 --allocator caching >/dev/null || fail "coop run"

# sweep: the allocator is a dimension of the run key; a second sweep finds every run stored
"$GMS_BIN" sweep "$T" --policies dtr,coop --allocators ideal,caching --budgets 0.6,0.9 \
  --db s.db --quiet -j 2 || fail "sweep"
"$GMS_BIN" db export s.db --csv > runs.csv || fail "export"
[ "$(grep -c ',ideal,' runs.csv)" -eq 2 ] || fail "ideal runs: $(cat runs.csv)"  # coop skips ideal
[ "$(grep -c ',caching,' runs.csv)" -eq 4 ] || fail "caching runs: $(cat runs.csv)"
again=$("$GMS_BIN" sweep "$T" --policies dtr,coop --allocators ideal,caching --budgets 0.6,0.9 \
  --db s.db 2>&1) || fail "second sweep"
echo "$again" | grep -q "0 runs in .* 6 already in s.db were skipped" || fail "resume: $again"
# charts and filters never mix memory models
out=$("$GMS_BIN" plot overhead s.db -o mixed.svg 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "allocator caching" || fail "plot averaged allocators: $out"
[ ! -e mixed.svg ] || fail "a chart was written from mixed allocators"
if command -v gnuplot >/dev/null; then
  "$GMS_BIN" plot overhead s.db --allocator caching -o caching.svg || fail "plot --allocator"
  [ -s caching.svg ] || fail "no chart for --allocator caching"
  "$GMS_BIN" plot timeline "$T" --policy dtr --budget 0.8 --allocator caching -o tl.svg \
    || fail "plot timeline --allocator"
  grep -q "reserved (caching)" tl.svg && grep -q ">allocated<" tl.svg \
    || fail "the timeline has no reserved and allocated lines"
fi
[ "$("$GMS_BIN" db export s.db --csv --where allocator=ideal | tail -n +2 | wc -l)" -eq 2 ] \
  || fail "--where allocator=ideal"
out=$("$GMS_BIN" db runs s.db --allocator lifetime 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "caching" || fail "unknown allocator filter: rc $rc: $out"
out=$("$GMS_BIN" sweep "$T" --policies coop --db t.db --quiet 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "needs a memory model" || fail "coop sweep with ideal only: $out"

# Kineto traces that are not allocation traces
printf '{"schemaVersion": 1, "traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2}]}' > nomem.json
out=$("$GMS_BIN" info nomem.json 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "profile_memory=True" || fail "no memory events: rc $rc: $out"
printf '{"traceEvents": [{"ph": "i", "name": "[memory]", "ts": 1, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2097152}}]}' > one.json
"$GMS_BIN" info one.json | grep -q "recorded_peak_reserved *2097152" || fail "info on a memory trace"
gzip -c one.json | head -c 40 > cut.json.gz
out=$("$GMS_BIN" info cut.json.gz 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a truncated gzip file was read: rc $rc: $out"
echo "ok"
