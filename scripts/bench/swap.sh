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
new="${GMS_BIN:-$PWD/build/cli/gpumemsim}"
old="${GMS_OLD_BIN:-}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
repeat="${GMS_BENCH_REPEAT:-3}"
k="${GMS_BENCH_SEEDS:-10}"
policies=(dtr lru swap-lru hybrid capuchin autoswap)
budgets=(0.2 0.3 0.4 0.5)
[ -x "$new" ] || { echo "swap.sh: $new is missing; build first or set GMS_BIN" >&2; exit 1; }
[ -z "$old" ] || [ -x "$old" ] || { echo "swap.sh: GMS_OLD_BIN=$old is not executable" >&2; exit 1; }
traces=("$shared"/traces/dtr-iclr21/*.log traces/samples/*.gmt)
[ -e "${traces[0]}" ] || { echo "swap.sh: no DTR logs under $shared (set GMS_SHARED_DIR)" >&2; exit 1; }
bins=(new)
[ -n "$old" ] && bins=(old new)
TIMEFORMAT='%U'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# user CPU (s) of one process
ucpu() {
  local out
  out=$({ time "$@" >/dev/null 2>"$tmp/err"; } 2>&1) || { echo "swap.sh: failed: $* ($(cat "$tmp/err"))" >&2; exit 1; }
  echo "$out"
}
# user CPU (s) of one run: (seeds n+1) - (seeds 1), over n; n = k, raised fourfold while the
# n runs take less than 0.3 s (user CPU is counted in clock ticks), up to 9000
run_cpu() {
  local bin=$1; shift
  local a b n=$k
  a=$(ucpu "$bin" sim "$@" --seeds 1 --quiet)
  while :; do
    b=$(ucpu "$bin" sim "$@" --seeds $((n + 1)) --quiet)
    if [ "$n" -ge 9000 ] || awk -v a="$a" -v b="$b" 'BEGIN { exit !(b - a >= 0.3) }'; then
      break
    fi
    n=$((n * 4 > 9000 ? 9000 : n * 4))
  done
  awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { d = (b - a) / n; printf "%.6f\n", d < 0 ? 0 : d }'
}

declare -A best
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "new: $new${old:+; old: $old}; at least $k runs per process, best of $repeat rounds"
for r in $(seq 1 "$repeat"); do
  for t in "${traces[@]}"; do
    name=$(basename "$t"); name=${name%%-[0-9]*}; name=${name%.gmt}
    for p in "${policies[@]}"; do
      for b in "${budgets[@]}"; do
        for which in "${bins[@]}"; do
          bin=$new
          [ "$which" = old ] && bin=$old
          link=()
          case $p in dtr | lru) ;; *) link=(--link pcie4) ;; esac # others refuse --link
          c=$(run_cpu "$bin" "$t" --policy "$p" --budget "$b" "${link[@]}")
          key="$which|$name|$p|$b"
          if [ -z "${best[$key]:-}" ] || awk -v c="$c" -v o="${best[$key]}" 'BEGIN { exit !(c < o) }'; then
            best[$key]=$c
          fi
        done
      done
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

names=()
for t in "${traces[@]}"; do
  name=$(basename "$t"); name=${name%%-[0-9]*}; name=${name%.gmt}
  names+=("$name")
done
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
