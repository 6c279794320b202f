#!/usr/bin/env bash
# Checkpoint planners on dynamic-shape traces (docs/planners.md, issue 11):
#  1. results: mimose, mimose-static, ckpt-all, ckpt-sqrt and dtr on the synth transformer
#     (50 iterations, input 128:512 tokens per sample) and resnet (50 iterations, image side
#     96:224) at several budgets (ratios of the largest iteration's peak): status, overhead,
#     peak, and for mimose the prediction error after warm-up and the plan-cache hit rate;
#  2. planning time: the planner's own wall time (plan + observe, as the engine measures it)
#     against the run's simulation wall time, median of 5 runs on a 500-iteration transformer,
#     and the run's wall time against a ckpt-all run (the same engine with a trivial planner).
# GMS_BIN as scripts/bench.sh sets it.
set -euo pipefail
: "${GMS_BIN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GMS_BIN" synth --model transformer --iterations 50 --vary-input 128:512 -o "$tmp/t.gmt" -q
"$GMS_BIN" synth --model resnet --iterations 50 --vary-input 96:224 -o "$tmp/r.gmt" -q
"$GMS_BIN" synth --model transformer --iterations 500 --vary-input 128:512 -o "$tmp/t500.gmt" -q

echo "-- results (overhead = simulated time / compute without a budget; err = |predicted -"
echo "   simulated peak| / simulated peak over the iterations after warm-up, mean / max)"
echo "| trace | budget | policy | status | overhead | peak GiB | err mean / max | cache hits |"
echo "|---|---:|---|---|---:|---:|---:|---:|"
for t in t r; do
  name=$([ $t = t ] && echo "transformer 128:512" || echo "resnet 96:224")
  for b in 0.6 0.7 0.8 0.9; do
    for p in mimose mimose-static ckpt-all ckpt-sqrt dtr; do
      "$GMS_BIN" sim "$tmp/$t.gmt" --policy "$p" --budget "$b" --json | jq -r \
        --arg n "$name" --arg b "$b" --arg p "$p" '
        def pct: if . == null then "-" else (. * 1000 | round / 10 | tostring) + "%" end;
        "| \($n) | \($b) | \($p) | \(.status) | " +
        (if .status == "ok" then (.overhead * 1000 | round / 1000 | tostring) else "-" end) +
        " | \(.peak_memory / 1073741824 * 1000 | round / 1000) | " +
        (if .planner.predicted > 0 then "\(.planner.pred_err_mean | pct) / \(.planner.pred_err_max | pct)" else "-" end) +
        " | " + (if .planner.cache_hit_rate == null then "-" else (.planner.cache_hit_rate | pct) end) + " |"'
    done
  done
done

echo "-- planning time, transformer 128:512, 500 iterations, budget 0.6, median of 5 runs"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for p in ckpt-all mimose mimose-static; do
  for i in 1 2 3 4 5; do
    "$GMS_BIN" sim "$tmp/t500.gmt" --policy "$p" --budget 0.6 --json |
      jq -r '"\(.wall_s) \(.planner.plan_s)"'
  done > "$tmp/$p.times"
  w=$(cut -d' ' -f1 "$tmp/$p.times" | median)
  s=$(cut -d' ' -f2 "$tmp/$p.times" | median)
  awk -v p="$p" -v w="$w" -v s="$s" 'BEGIN {
    printf "%-14s run wall %.4f s, planner %.6f s = %.2f%% of the run\n", p, w, s, 100 * s / w }'
  echo "$w" > "$tmp/$p.wall"
done
awk -v a="$(cat "$tmp/ckpt-all.wall")" -v m="$(cat "$tmp/mimose.wall")" 'BEGIN {
  printf "mimose run / ckpt-all run wall time: %.3f\n", m / a }'
