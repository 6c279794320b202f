#!/usr/bin/env bash
# Memory models (docs/memory.md): on every DTR log and the synthetic samples,
#  1. the smallest budget (ratio of baseline memory, to 0.005) at which each policy runs ok
#     under the ideal count and under PyTorch's caching allocator: what fragmentation costs;
#  2. peak reserved bytes with no budget: ideal (the most bytes live at once), caching, and
#     the lifetime pool (SmartPool);
#  3. simulator time of the models' runs against ideal runs (the goal for caching: at most 2x).
# GMS_BIN and GMS_SHARED_DIR as scripts/bench.sh sets them.
set -euo pipefail
: "${GMS_BIN:?}"
logs="${GMS_SHARED_DIR:-$PWD/../shared}/traces/dtr-iclr21"
traces=()
[ -d "$logs" ] && traces+=("$logs"/*.log)
traces+=(traces/samples/*-small.gmt)

ok_at() { # trace policy allocator ratio -> 0 when the run is ok
  "$GMS_BIN" sim "$1" --policy "$2" --allocator "$3" --budget "$4" --json |
    jq -e '.status == "ok"' >/dev/null
}
# Smallest ok ratio by bisection between a failing low and an ok high (overhead and status
# are not monotone in the budget for every policy: this finds one boundary, from above).
floor_ratio() {
  local t=$1 p=$2 a=$3 lo=0.0 hi=1.0 mid
  ok_at "$t" "$p" "$a" 1.0 || { echo "-"; return; }
  while awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(h - l > 0.005) }'; do
    mid=$(awk -v l="$lo" -v h="$hi" 'BEGIN { printf "%.4f", (l + h) / 2 }')
    if ok_at "$t" "$p" "$a" "$mid"; then hi=$mid; else lo=$mid; fi
  done
  echo "$hi"
}
name() { basename "$1" | sed -E 's/-[0-9].*//; s/\.gmt$//'; }

echo "-- smallest ok budget (ratio of baseline memory): ideal / caching"
printf "%-20s" trace; for p in dtr dtr-eq lru msps coop dtr-frag; do printf " %15s" "$p"; done; echo
for t in "${traces[@]}"; do
  printf "%-20s" "$(name "$t")"
  for p in dtr dtr-eq lru msps coop dtr-frag; do
    if [ "$p" = coop ] || [ "$p" = dtr-frag ]; then i="n/a"; else i=$(floor_ratio "$t" "$p" ideal); fi
    c=$(floor_ratio "$t" "$p" caching)
    printf " %15s" "$i / $c"
  done
  echo
done

echo "-- peak reserved bytes without a budget (MiB): ideal (live bytes), caching, lifetime"
for t in "${traces[@]}"; do
  line="$(name "$t")"
  for a in ideal caching lifetime; do
    r=$("$GMS_BIN" sim "$t" --policy dtr --allocator "$a" --json | jq '.peak_reserved')
    line="$line $(awk -v r="$r" 'BEGIN { printf "%.1f", r / 1048576 }')"
  done
  echo "$line" | awk '{ printf "%-20s %10s %10s %10s  caching/ideal %.3f  lifetime/caching %.3f\n", $1, $2, $3, $4, $3 / $2, $4 / $3 }'
done

echo "-- simulator time, caching and lifetime vs ideal: wall_s summed over 3 repetitions of"
echo "   every trace x dtr,lru,msps, (a) without a budget (the models' own bookkeeping) and"
echo "   (b) at budgets 0.4..0.9 where the ideal and the model runs are both ok"
for a in caching lifetime; do
  si=0; sm=0; bi=0; bm=0
  for rep in 1 2 3; do
    for t in "${traces[@]}"; do for p in dtr lru msps; do
      wi=$("$GMS_BIN" sim "$t" --policy "$p" --json | jq '.wall_s')
      wm=$("$GMS_BIN" sim "$t" --policy "$p" --allocator "$a" --json | jq '.wall_s')
      si=$(awk -v s="$si" -v w="$wi" 'BEGIN { print s + w }')
      sm=$(awk -v s="$sm" -v w="$wm" 'BEGIN { print s + w }')
      for b in 0.4 0.5 0.6 0.7 0.8 0.9; do
        ri=$("$GMS_BIN" sim "$t" --policy "$p" --budget "$b" --json | jq -r '"\(.status) \(.wall_s)"')
        rm=$("$GMS_BIN" sim "$t" --policy "$p" --budget "$b" --allocator "$a" --json |
             jq -r '"\(.status) \(.wall_s)"')
        [ "${ri%% *}" = ok ] && [ "${rm%% *}" = ok ] || continue
        bi=$(awk -v s="$bi" -v w="${ri#* }" 'BEGIN { print s + w }')
        bm=$(awk -v s="$bm" -v w="${rm#* }" 'BEGIN { print s + w }')
      done
    done; done
  done
  awk -v a="$a" -v si="$si" -v sm="$sm" -v bi="$bi" -v bm="$bm" 'BEGIN {
    printf "%-9s no budget: ideal %.3f s, %s %.3f s (%.2fx); budgets: ideal %.3f s, %s %.3f s (%.2fx)\n",
           a, si, a, sm, sm / si, bi, a, bm, bm / bi }'
done
