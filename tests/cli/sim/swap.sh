#!/usr/bin/env bash
# End-to-end: swapping to host memory in 'sim' (--link, --host-memory, swap-lru) on the
# project's own samples: the swap figures are reported and balance, a slower link stalls
# more, host memory caps what is swapped, the default replay does not change, and bad input
# (unknown link, bad bandwidth, host memory below one tensor, swapping with an allocator or a
# non-swapping policy given swap options) is refused with a clear error.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
T="$GMS_SOURCE_DIR/traces/samples/transformer-small.gmt"

p3=$("$GMS_BIN" sim "$T" --policy swap-lru --budget 0.4 --link pcie3 --json) || fail "sim pcie3"
p5=$("$GMS_BIN" sim "$T" --policy swap-lru --budget 0.4 --link pcie5 --json) || fail "sim pcie5"
echo "$p3" | jq -e '.status == "ok" and .swap.swaps_out > 0 and .swap.swap_in_bytes > 0
  and .swap.swap_in_bytes <= .swap.swap_out_bytes and .swap.link_gbps == 15.75
  and .swap.link_latency_ns == 10000 and .swap.host_memory == null
  and .clock == 1 + .baseline_compute + .remat_compute + .swap.stall_ns
  and .swap.d2h_utilization > 0 and .swap.d2h_utilization <= 1
  and .peak_memory <= .budget' >/dev/null || fail "pcie3 figures: $p3"
echo "$p5" | jq -e '.swap.link_gbps == 63' >/dev/null || fail "pcie5 link: $p5"
[ "$(jq -n --argjson a "$p3" --argjson b "$p5" '$a.swap.stall_ns > $b.swap.stall_ns')" = true ] \
  || fail "a slower link does not stall more"
# a custom link, text output
out=$("$GMS_BIN" sim "$T" --policy swap-lru --budget 0.4 --link 8,25) || fail "sim 8,25"
echo "$out" | grep -q "^link  *8 GB/s per direction, 25000 ns per copy" || fail "text link: $out"
echo "$out" | grep -q "^stall  *[0-9]* ns" || fail "text stall: $out"
echo "$out" | grep -q "^copy engines .*busy" || fail "text engines: $out"
# same run twice: same answer
a=$("$GMS_BIN" sim "$T" --policy swap-lru --budget 0.3 --json | jq -c 'del(.wall_s)')
b=$("$GMS_BIN" sim "$T" --policy swap-lru --budget 0.3 --json | jq -c 'del(.wall_s)')
[ "$a" = "$b" ] || fail "not deterministic"
# limited host memory: no more than that on the host, the rest dropped and recomputed
h=$(echo "$p3" | jq '.swap.host_peak / 4 | floor')
out=$("$GMS_BIN" sim "$T" --policy swap-lru --budget 0.4 --link pcie3 --host-memory "${h}B" \
  --json) || fail "sim --host-memory"
echo "$out" | jq -e --argjson h "$h" '.swap.host_memory == $h and .swap.host_peak <= $h
  and .swap.fallbacks > 0 and .evictions == .swap.fallbacks' >/dev/null \
  || fail "host memory: $out"
# the default replay has no swap object, and dtr's run is what it was
out=$("$GMS_BIN" sim "$T" --budget 0.4 --json) || fail "sim dtr"
echo "$out" | jq -e 'has("swap") | not' >/dev/null || fail "dtr reports swapping: $out"

# Perfetto: one slice per copy on the two copy tracks, in each engine's queue order
"$GMS_BIN" sim "$T" --policy swap-lru --budget 0.4 --link pcie3 --perfetto run.json >/dev/null \
  || fail "sim --perfetto"
jq -e --argjson r "$p3" '[.traceEvents[] | select(.cat == "copy")] as $c
  | ($c | map(select(.tid == 3)) | length) == $r.swap.swaps_out
  and ($c | map(select(.tid == 4)) | length) == $r.swap.swaps_in
  and ([.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name]
       | index("copy device-to-host") != null)
  and ([$c[] | select(.tid == 3) | .ts] as $t | $t == ($t | sort))
  and .otherData.stall_ns == $r.swap.stall_ns' run.json >/dev/null || fail "perfetto copies"
# the resident counter drops when a swap-out's copy ends (swap-lru waits for each copy, so
# every end is a moment of its own; ts are us with 3 decimals)
jq -e '[.traceEvents[] | select(.ph == "C" and .name == "resident") | .ts] as $c
  | [.traceEvents[] | select(.name == "swap out") | (.ts + .dur) as $e
     | any($c[]; . >= $e - 0.0015 and . <= $e + 0.0015)] | length > 0 and all' run.json \
  >/dev/null || fail "no resident counter at a swap-out's end"
# the timeline chart marks copy activity (gnuplot draws it; it is optional on a build machine)
if command -v gnuplot >/dev/null; then
  "$GMS_BIN" plot timeline "$T" --policy swap-lru --budget 0.4 --link pcie3 -o tl.svg \
    >/dev/null 2>&1 || fail "plot timeline"
  grep -q "swap-out queued" tl.svg && grep -q "swap-in queued" tl.svg || fail "no copy markers"
else
  echo "note: gnuplot not found: the timeline chart's copy markers were not checked" >&2
fi

# sweep: the link and host memory are in the swapping runs' params (so they never collide),
# the figures in their columns, and db export carries them
"$GMS_BIN" sweep "$T" --policies dtr,swap-lru --budgets 0.4 --db s.db --quiet -j 1 --link pcie3 \
  || fail "sweep pcie3"
"$GMS_BIN" sweep "$T" --policies swap-lru --budgets 0.4 --db s.db --quiet -j 1 --link pcie5 \
  --host-memory "${h}B" || fail "sweep pcie5"
rows=$("$GMS_BIN" db export s.db --json) || fail "db export"
echo "$rows" | jq -e --argjson h "$h" --argjson p3 "$p3" 'length == 3
  and ([.[] | select(.policy == "dtr")][0] | .params == "" and .stall_ns == 0)
  and ([.[] | select(.params == "link=15.75GBps/10000ns")][0] | .stall_ns == $p3.swap.stall_ns
       and .swap_out_bytes == $p3.swap.swap_out_bytes and .d2h_busy_ns == $p3.swap.d2h_busy_ns)
  and ([.[] | select(.params == "link=63GBps/10000ns,host=\($h)")] | length == 1)' \
  >/dev/null || fail "sweep rows: $rows"
"$GMS_BIN" db export s.db --csv | head -1 | grep -q ",swap_out_bytes,swap_in_bytes,stall_ns," \
  || fail "csv header"
err=$("$GMS_BIN" sweep "$T" --policies swap-lru --db s.db --link warp9 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$err" | grep -q "unknown link 'warp9'" || fail "sweep bad link: $rc $err"

# bad input: clear errors, exit 2, no crash
chk() { # name, expected-stderr-regex, args...
  local name=$1 re=$2; shift 2
  err=$("$GMS_BIN" sim "$T" "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "$name: exit $rc ($err)"
  echo "$err" | grep -Eq "$re" || fail "$name: '$err' does not match /$re/"
}
chk "unknown link" "unknown link 'pcie9'.*pcie3, pcie4, pcie5, nvlink-c2c" --policy swap-lru --link pcie9
chk "negative bandwidth" "bandwidth must be a positive" --policy swap-lru --link=-16
chk "zero bandwidth" "bandwidth must be a positive" --policy swap-lru --link 0
chk "bad latency" "latency after the comma" --policy swap-lru --link 16,x
chk "host below one tensor" "smaller than the smallest tensor" --policy swap-lru --host-memory 1B
chk "host zero" "positive byte count" --policy swap-lru --host-memory 0
chk "host text" "positive byte count" --policy swap-lru --host-memory lots
chk "non-swapping policy" "policy dtr never swaps" --policy dtr --link pcie4
chk "allocator" "swaps to host memory.*drop --allocator" --policy swap-lru --allocator caching
echo ok
