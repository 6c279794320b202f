#!/usr/bin/env bash
# Swapping against eviction-only runs (issue 13's goal: a run that swaps takes at most 2x the
# time of the eviction-only run it is built on, on the same trace). For every trace (the five
# DTR logs and the bundled synthetic ones), every policy of $policies and budgets 0.2, 0.3,
# 0.4, 0.5 on PCIe 4, measures the user CPU of one run: the sim process with --seeds K+1
# minus the same with --seeds 1, over K (so the trace load cancels; --seeds repeats the run in
# one process whatever the policy; K = GMS_BENCH_SEEDS, default 10, raised fourfold for short
# runs until the K runs take 0.3 s, since user CPU is counted in clock ticks). Each figure is the best of GMS_BENCH_REPEAT (default 3)
# rounds, and with GMS_OLD_BIN set (another build, e.g. main's) the old and the new binary
# alternate within each round so that load from other processes hits both alike. Prints one
# row per trace: the user CPU summed over the budgets per policy and binary, then the ratios
# swap-lru/lru, hybrid/dtr, capuchin/dtr, autoswap/lru (each swapping policy against the
# eviction-only policy whose victim choice it falls back on). Numbers go to docs/benchmarks.md
# "## Swapping to host memory". Takes about 15 minutes a round with both binaries on a loaded
# 2-core machine.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
me=swap.sh
repeat="${GMS_BENCH_REPEAT:-3}"
k="${GMS_BENCH_SEEDS:-10}"
# shellcheck source=scripts/bench/lib/cpu_rounds.sh
. scripts/bench/lib/cpu_rounds.sh # new, old, shared; run_cpu, bench_rounds, best[]
policies=(dtr lru swap-lru hybrid capuchin autoswap)
budgets=(0.2 0.3 0.4 0.5)
traces=("$shared"/traces/dtr-iclr21/*.log traces/samples/*.gmt)
bench_need_traces
bins=(new)
[ -n "$old" ] && bins=(old new)
runs=()
for p in "${policies[@]}"; do
  for which in "${bins[@]}"; do runs+=("$which $p"); done
done
echo "new: $new${old:+; old: $old}; at least $k runs per process, best of $repeat rounds"
bench_rounds

names=()
for t in "${traces[@]}"; do names+=("$(trace_name "$t")"); done
# sums[which|trace|policy] in ms, over the budgets; "all" sums the traces
declare -A sums
for which in "${bins[@]}"; do
  for p in "${policies[@]}"; do
    tot=0
    for name in "${names[@]}"; do
      s=0
      for b in "${budgets[@]}"; do
        s=$(awk -v s="$s" -v c="${best[$which|$name|$p|$b]}" 'BEGIN { printf "%.6f", s + c * 1000 }')
      done
      sums[$which|$name|$p]=$s
      tot=$(awk -v a="$tot" -v s="$s" 'BEGIN { printf "%.6f", a + s }')
    done
    sums[$which|all|$p]=$tot
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "-" }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.2f", a }'; }
for which in "${bins[@]}"; do
  echo
  echo "## $which: user CPU per run in ms, summed over budgets ${budgets[*]} (PCIe 4)"
  echo "| trace | $(printf '%s | ' "${policies[@]}")swap-lru / lru | hybrid / dtr | capuchin / dtr | autoswap / lru |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---|---|---|"
  for name in "${names[@]}" all; do
    row="| $name"
    for p in "${policies[@]}"; do row+=" | $(ms "${sums[$which|$name|$p]}")"; done
    row+=" | $(ratio "${sums[$which|$name|swap-lru]}" "${sums[$which|$name|lru]}")"
    row+=" | $(ratio "${sums[$which|$name|hybrid]}" "${sums[$which|$name|dtr]}")"
    row+=" | $(ratio "${sums[$which|$name|capuchin]}" "${sums[$which|$name|dtr]}")"
    row+=" | $(ratio "${sums[$which|$name|autoswap]}" "${sums[$which|$name|lru]}") |"
    echo "$row"
  done
done
if [ -n "$old" ]; then
  echo
  echo "## new / old, per policy (user CPU summed over the budgets)"
  echo "| trace | $(printf '%s | ' "${policies[@]}")"
  echo "|---|---|---|---|---|---|---|"
  for name in "${names[@]}" all; do
    row="| $name"
    for p in "${policies[@]}"; do row+=" | $(ratio "${sums[new|$name|$p]}" "${sums[old|$name|$p]}")"; done
    echo "$row |"
  done
fi
