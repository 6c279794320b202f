#!/usr/bin/env bash
# End-to-end: 'sim --seeds' reports the distribution over seeds, never the first seed's run
# as the result: the top level is the median run, 'seeds' holds the median, range, each
# seed's overhead and how many stopped, and a mean only when every seed finished (text and
# JSON); 'calibrate' refuses to average seeds that stopped; 'db runs' shows the seeds a sweep
# stored as one distribution per point.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1

all=$("$GMS_BIN" sim --chain 300 --policy random --budget 0.3 --seeds 9 --remat-limit 0 --json) \
  || fail "sim --seeds"
echo "$all" | jq -e '.seeds.runs == 9 and .seeds.ok == 9 and .seeds.oom == 0
  and .seeds.remat_limit == 0 and .seeds.all_finished and (.seeds.overheads | length) == 9
  and .seeds.overhead_median == (.seeds.overheads | sort | .[4])
  and .seeds.overhead_min == (.seeds.overheads | min)
  and .seeds.overhead_max == (.seeds.overheads | max)
  and (.seeds.overhead_mean - (.seeds.overheads | add / 9) | fabs) < 1e-12
  and .overhead == .seeds.overhead_median
  and .overhead == .seeds.overheads[.seeds.median_seed - .seed]' >/dev/null \
  || fail "every seed finished: $all"
[ "$(echo "$all" | jq '.seeds.overheads | unique | length')" -gt 1 ] || fail "seeds all agree"
# the top-level figures are the median run's, consistent with each other (its clock)
med=$(echo "$all" | jq '.seeds.median_seed')
one=$("$GMS_BIN" sim --chain 300 --policy random --budget 0.3 --seed "$med" --remat-limit 0 --json)
[ "$(echo "$one" | jq -c '[.overhead, .clock, .evictions, .remats]')" = \
  "$(echo "$all" | jq -c '[.overhead, .clock, .evictions, .remats]')" ] \
  || fail "top level is not the median seed's run: $one vs $all"

# a remat limit between the sorted overheads 6 and 7 (of 9) stops the 3 costliest seeds
lim=$(echo "$all" | jq '.seeds.overheads | sort | (.[5] + .[6]) / 2')
part=$("$GMS_BIN" sim --chain 300 --policy random --budget 0.3 --seeds 9 --remat-limit "$lim" \
  --json) || fail "sim --seeds with a limit"
echo "$part" | jq -e '.seeds.ok == 6 and .seeds.remat_limit == 3 and (.seeds.all_finished | not)
  and .seeds.overhead_mean == null and .seeds.overhead_sd == null
  and ([.seeds.overheads[] | select(. == null)] | length) == 3
  and .seeds.status == "remat-limit" and .status == "ok"
  and .seeds.overhead_median == .overhead' >/dev/null || fail "some seeds stopped: $part"
txt=$("$GMS_BIN" sim --chain 300 --policy random --budget 0.3 --seeds 9 --remat-limit "$lim") \
  || fail "sim --seeds text"
echo "$txt" | grep -Eq "^seeds +median [0-9.]+ of 9 seeds \(seed [0-9]+\), min [0-9.]+, max [0-9.]+; 3 of 9 stopped \(0 oom, 3 remat-limit\), so no mean$" \
  || fail "text: $txt"
echo "$txt" | grep -q "^median run  *seed [0-9]* of 9" || fail "text median run: $txt"
# most seeds stopped: the median run is a stopped one, and says so
low=$(echo "$all" | jq '.seeds.overheads | sort | (.[0] + .[1]) / 2')
most=$("$GMS_BIN" sim --chain 300 --policy random --budget 0.3 --seeds 9 --remat-limit "$low" \
  --json) || fail "sim --seeds mostly stopped"
echo "$most" | jq -e '.seeds.ok == 1 and .status == "remat-limit" and .overhead == null
  and .seeds.overhead_median == null and .seeds.median_status == "remat-limit"' >/dev/null \
  || fail "most seeds stopped: $most"

# calibrate averages only when every seed finishes
if "$GMS_BIN" calibrate "$GMS_SOURCE_DIR/traces/samples/resnet-small.gmt" --policy random \
    --budget 0.3 --measured 1.5 --seeds 9 --remat-limit 1.0001 >out.txt 2>err.txt; then
  fail "calibrate averaged stopped seeds: $(cat out.txt)"
fi
grep -q "seeds stopped" err.txt || fail "calibrate message: $(cat err.txt)"

# a sweep stores each seed; db runs shows them as one distribution per point
S="$GMS_SOURCE_DIR/traces/samples/resnet-small.gmt"
"$GMS_BIN" sweep "$S" --policies random,dtr --budgets 0.7 --seeds 5 --remat-limit 0 --db s.db --quiet \
  || fail "sweep"
runs=$("$GMS_BIN" db runs s.db) || fail "db runs"
echo "$runs" | grep -Eq "^  resnet-small  random  ratio 0.7: 5 seeds, median [0-9.]+, min [0-9.]+, max [0-9.]+, mean [0-9.]+$" \
  || fail "db runs seeds: $runs"
! echo "$runs" | grep -q "^  resnet-small  dtr " || fail "dtr has one run, no distribution"
exit 0
