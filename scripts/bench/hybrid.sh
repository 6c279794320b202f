#!/usr/bin/env bash
# What hybrid's measured director costs in simulation time (issue 30, third session): hybrid
# replays the step under hybrid-mix, dtr and swap-lru before it runs the cheapest, so a run
# costs about the three replays plus the kept one. For the five DTR logs at budgets 0.2, 0.3,
# 0.4, 0.5 on PCIe 4, measures the user CPU of one run of the new binary's hybrid, hybrid-mix
# (the per-victim director, the code that was hybrid before), dtr and swap-lru and, with
# GMS_OLD_BIN set (a build of main before the change), the old binary's hybrid, alternating
# the binaries within each round. Per run: the sim process with --seeds K+1 minus the same with
# --seeds 1, over K (the trace load cancels; K = GMS_BENCH_SEEDS, default 4, raised fourfold
# until the K runs take 0.3 s of user CPU); the best of GMS_BENCH_REPEAT (default 2) rounds.
# Prints per trace the ms summed over the budgets and the ratios new hybrid / old hybrid and
# new hybrid / hybrid-mix. Numbers go to docs/benchmarks.md.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
me=hybrid.sh
repeat="${GMS_BENCH_REPEAT:-2}"
k="${GMS_BENCH_SEEDS:-4}"
# shellcheck source=scripts/bench/lib/cpu_rounds.sh
. scripts/bench/lib/cpu_rounds.sh # new, old, shared; run_cpu, bench_rounds, best[]
budgets=(0.2 0.3 0.4 0.5)
traces=("$shared"/traces/dtr-iclr21/*.log)
bench_need_traces
runs=("new hybrid" "new hybrid-mix" "new dtr" "new swap-lru")
[ -n "$old" ] && runs=("old hybrid" "${runs[@]}")
bench_rounds
echo
echo "| trace | $(printf '%s | ' "${runs[@]}")new hybrid / hybrid-mix |${old:+ new hybrid / old hybrid |}"
echo "|---|$(printf -- '---:|%.0s' "${runs[@]}")---|${old:+---|}"
declare -A tot
for name in $(for t in "${traces[@]}"; do trace_name "$t"; done) all; do
  row="| $name"
  declare -A s=()
  for run in "${runs[@]}"; do
    if [ "$name" = all ]; then
      s[$run]=${tot[$run]}
    else
      v=0
      for b in "${budgets[@]}"; do
        v=$(awk -v v="$v" -v c="${best[${run% *}|$name|${run#* }|$b]}" 'BEGIN { printf "%.6f", v + c * 1000 }')
      done
      s[$run]=$v
      tot[$run]=$(awk -v a="${tot[$run]:-0}" -v v="$v" 'BEGIN { printf "%.6f", a + v }')
    fi
    row+=" | $(awk -v a="${s[$run]}" 'BEGIN { printf "%.2f", a }')"
  done
  row+=" | $(awk -v a="${s[new hybrid]}" -v b="${s[new hybrid-mix]}" 'BEGIN { printf "%.2fx", a / b }')"
  [ -n "$old" ] && row+=" | $(awk -v a="${s[new hybrid]}" -v b="${s[old hybrid]}" 'BEGIN { printf "%.2fx", a / b }')"
  echo "$row |"
done
