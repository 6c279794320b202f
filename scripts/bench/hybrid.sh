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
new="${GMS_BIN:-$PWD/build/cli/gpumemsim}"
old="${GMS_OLD_BIN:-}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
repeat="${GMS_BENCH_REPEAT:-2}"
k="${GMS_BENCH_SEEDS:-4}"
budgets=(0.2 0.3 0.4 0.5)
[ -x "$new" ] || { echo "hybrid.sh: $new is missing; build first or set GMS_BIN" >&2; exit 1; }
[ -z "$old" ] || [ -x "$old" ] || { echo "hybrid.sh: GMS_OLD_BIN=$old is not executable" >&2; exit 1; }
traces=("$shared"/traces/dtr-iclr21/*.log)
[ -e "${traces[0]}" ] || { echo "hybrid.sh: no DTR logs under $shared (set GMS_SHARED_DIR)" >&2; exit 1; }
runs=("new hybrid" "new hybrid-mix" "new dtr" "new swap-lru")
[ -n "$old" ] && runs=("old hybrid" "${runs[@]}")
TIMEFORMAT='%U'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ucpu() {
  local out
  out=$({ time "$@" >/dev/null 2>"$tmp/err"; } 2>&1) || { echo "hybrid.sh: failed: $* ($(cat "$tmp/err"))" >&2; exit 1; }
  echo "$out"
}
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
for r in $(seq 1 "$repeat"); do
  for t in "${traces[@]}"; do
    name=$(basename "$t"); name=${name%%-[0-9]*}
    for b in "${budgets[@]}"; do
      for run in "${runs[@]}"; do
        read -r which p <<< "$run"
        bin=$new
        [ "$which" = old ] && bin=$old
        link=(--link pcie4)
        [ "$p" = dtr ] && link=()
        c=$(run_cpu "$bin" "$t" --policy "$p" --budget "$b" "${link[@]}")
        key="$which $p|$name|$b"
        if [ -z "${best[$key]:-}" ] || awk -v c="$c" -v o="${best[$key]}" 'BEGIN { exit !(c < o) }'; then
          best[$key]=$c
        fi
      done
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| trace | $(printf '%s | ' "${runs[@]}")new hybrid / hybrid-mix |${old:+ new hybrid / old hybrid |}"
echo "|---|$(printf -- '---:|%.0s' "${runs[@]}")---|${old:+---|}"
declare -A tot
for name in $(for t in "${traces[@]}"; do n=$(basename "$t"); echo "${n%%-[0-9]*}"; done) all; do
  row="| $name"
  declare -A s=()
  for run in "${runs[@]}"; do
    if [ "$name" = all ]; then
      s[$run]=${tot[$run]}
    else
      v=0
      for b in "${budgets[@]}"; do
        v=$(awk -v v="$v" -v c="${best[$run|$name|$b]}" 'BEGIN { printf "%.6f", v + c * 1000 }')
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
