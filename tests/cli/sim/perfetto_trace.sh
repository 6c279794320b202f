#!/usr/bin/env bash
# End-to-end: 'sim --perfetto' writes a trace-event JSON file that a strict parser (jq) reads,
# whose tracks are in time order and whose slices, instants and counters agree with the run
# that 'sim --json' reports: one op slice per op, one remat slice per rematerialization, one
# instant per eviction of each kind, slice durations summing to the clock, the resident
# counter peaking at peak_memory (and reserved/allocated at the model's peaks). The default
# report is unchanged by the option, and a failed write leaves no file behind.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
S="$GMS_SOURCE_DIR/traces/samples"

# check_run FILE JSON_REPORT OPS: the file against the run's own figures
check_run() {
  local f=$1 rep=$2 ops=$3
  jq -e . "$f" >/dev/null || fail "$f is not valid JSON"
  local remats evictions eager peak clock base status
  remats=$(echo "$rep" | jq .remats); evictions=$(echo "$rep" | jq .evictions)
  eager=$(echo "$rep" | jq .eager_evictions); peak=$(echo "$rep" | jq .peak_memory)
  clock=$(echo "$rep" | jq .clock); base=$(echo "$rep" | jq .baseline_compute)
  status=$(echo "$rep" | jq -r .status)
  local got
  got=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "op")] | length' "$f")
  [ "$status" != ok ] || [ "$got" -eq "$ops" ] || fail "$f: $got op slices, the trace has $ops ops"
  got=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "remat")] | length' "$f")
  [ "$got" -eq "$remats" ] || fail "$f: $got remat slices, the run reports $remats remats"
  got=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "remat")
              | select(.name | startswith("remat ") | not)] | length' "$f")
  [ "$got" -eq 0 ] || fail "$f: remat slices not named 'remat <op>'"
  got=$(jq '[.traceEvents[] | select(.ph == "i" and .name == "evict")] | length' "$f")
  [ "$got" -eq "$evictions" ] || fail "$f: $got evict instants, the run reports $evictions"
  got=$(jq '[.traceEvents[] | select(.ph == "i" and .name == "free")] | length' "$f")
  [ "$got" -eq "$eager" ] || fail "$f: $got free instants, the run reports $eager eager"
  got=$(jq '[.traceEvents[] | select(.ph == "C" and .name == "resident") | .args.bytes] | max' "$f")
  [ "$got" -eq "$peak" ] || fail "$f: resident counter peaks at $got, peak_memory is $peak"
  # the clock is sequential: slices tile [1, clock] (durations in µs with 3 decimals = ns)
  got=$(jq '[.traceEvents[] | select(.ph == "X") | (.dur * 1000 | round)] | add // 0' "$f")
  [ "$got" -eq $((clock - 1)) ] || fail "$f: slices last $got ns, the clock ran $((clock - 1))"
  if [ "$status" = ok ]; then
    got=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "op") | (.dur * 1000 | round)]
              | add // 0' "$f")
    [ "$got" -eq "$base" ] || fail "$f: op slices last $got ns, baseline compute is $base"
  fi
  # each track (a thread, or a counter) in non-decreasing time
  jq -e '[.traceEvents[] | select(.ph != "M")]
         | group_by(if .ph == "C" then "C " + .name else "T \(.tid)" end)
         | all(map(.ts) as $t | $t == ($t | sort))' "$f" >/dev/null \
    || fail "$f: a track is out of time order"
  jq -e --arg s "$status" '.otherData.status == $s' "$f" >/dev/null \
    || fail "$f: otherData.status is not $status"
  jq -e '[.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name]
         | index("compute") != null and index("evictions") != null' "$f" >/dev/null \
    || fail "$f: threads not named"
}

ops_of() { "$GMS_BIN" info "$1" --json | jq '.ops + .events_by_kind.CONSTANT'; }

# ideal model, a budget that needs evictions and remats
T="$S/unet-small.gmt"
plain=$("$GMS_BIN" sim "$T" --budget 0.5 --json) || fail "sim"
rep=$("$GMS_BIN" sim "$T" --budget 0.5 --json --perfetto run.json) || fail "sim --perfetto"
[ "$(echo "$plain" | jq -c 'del(.wall_s)')" = "$(echo "$rep" | jq -c 'del(.wall_s)')" ] \
  || fail "--perfetto changed the report: $plain vs $rep"
[ "$(echo "$rep" | jq .remats)" -gt 0 ] && [ "$(echo "$rep" | jq .evictions)" -gt 0 ] \
  || fail "the test budget should make the run evict and rematerialize: $rep"
check_run run.json "$rep" "$(ops_of "$T")"
jq -e '[.traceEvents[] | select(.ph == "C" and .name == "budget") | .args.bytes] | unique
       == [input.budget]' run.json <(echo "$rep") >/dev/null || fail "budget counter"
jq -e '[.traceEvents[] | select(.name == "reserved")] | length == 0' run.json >/dev/null \
  || fail "reserved counter without a memory model"
# the text report is the same with and without the option
diff <("$GMS_BIN" sim "$T" --budget 0.5 | grep -v '^wall time') \
     <("$GMS_BIN" sim "$T" --budget 0.5 --perfetto again.json | grep -v '^wall time') \
  || fail "--perfetto changed the text report"
cmp <(jq -c 'del(.otherData)' run.json) <(jq -c 'del(.otherData)' again.json) \
  || fail "two runs wrote different traces"

# a memory model: reserved and allocated counters at the model's peaks
T="$S/transformer-small.gmt"
for m in caching lifetime; do
  rep=$("$GMS_BIN" sim "$T" --budget 0.6 --allocator $m --json --perfetto $m.json) \
    || fail "sim --allocator $m"
  check_run $m.json "$rep" "$(ops_of "$T")"
  for c in reserved allocated; do
    got=$(jq --arg c $c '[.traceEvents[] | select(.ph == "C" and .name == $c) | .args.bytes] | max' $m.json)
    want=$(echo "$rep" | jq .peak_$c)
    [ "$got" = "$want" ] || fail "$m: $c counter peaks at $got, the run reports $want"
  done
done

# a failed run is still a trace (up to the failure); so is a synthetic chain
rep=$("$GMS_BIN" sim "$S/unet-small.gmt" --budget 0.05 --json --perfetto oom.json) || fail "oom run"
[ "$(echo "$rep" | jq -r .status)" = oom ] || fail "budget 0.05 should fail: $rep"
check_run oom.json "$rep" 0
rep=$("$GMS_BIN" sim --chain 50 --budget 0.5 --json --perfetto chain.json) || fail "--chain"
check_run chain.json "$rep" $((2 * 50 + 2 + 2))  # 2n + 2 ops and 2 constants

# odd op names come out as valid JSON strings
"$GMS_BIN" convert "$S/unet-small.gmt" -o u.log --to dtr-log >/dev/null 2>&1 || fail "convert"
sed 's/"NAME":"convolution"/"NAME":"conv\\"olution\\\\ \\u0001\\u00e9"/' u.log > odd.log
grep -q 'conv\\"olution' odd.log || fail "no op renamed in odd.log"
rep=$("$GMS_BIN" sim odd.log --budget 0.5 --json --perfetto odd.json) || fail "sim odd names"
jq -e '[.traceEvents[] | .name] | index("conv\"olution\\ \u0001\u00e9") != null' odd.json \
  >/dev/null || fail "odd op names broke the JSON or were changed"

# refusals and failures leave no file
out=$("$GMS_BIN" sim "$S/unet-small.gmt" --perfetto - 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "give a file name" || fail "--perfetto -: rc $rc: $out"
mkdir adir
out=$("$GMS_BIN" sim "$S/unet-small.gmt" --perfetto adir 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "is a directory" || fail "--perfetto DIR: rc $rc: $out"
out=$("$GMS_BIN" sim "$S/unet-small.gmt" --perfetto nodir/x.json 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "cannot create" || fail "--perfetto nodir/: rc $rc: $out"
out=$( (ulimit -f 16; trap '' XFSZ; "$GMS_BIN" sim "$S/unet-small.gmt" --budget 0.5 \
        --perfetto full.json) 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "write failed" || fail "a full disk: rc $rc: $out"
[ ! -e full.json ] || fail "a partial trace was left"
out=$("$GMS_BIN" sim "$S/unet-small.gmt" --budget 0.5 --seeds 2 --perfetto s.json 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "drop --seeds" || fail "--perfetto with --seeds: $out"
out=$("$GMS_BIN" sim --reference-table x.csv --perfetto y.json 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "drop --perfetto" || fail "with --reference-table: $out"
ls ./*.tmp-* 2>/dev/null && fail "a temporary file was left behind"
echo "ok"
