#!/usr/bin/env bash
# Sweep benchmark: does a sweep use every core? Sweeps the five DTR paper logs with every
# policy at budgets 0.1..1.0 (350 runs) into a fresh store with -j 1, -j 2, ... -j $(nproc),
# best of GMS_BENCH_REPEAT (3) wall-clock runs each, and prints the speedup over -j 1, plus the
# sum of the simulator's own per-run wall times (the work) and the machine's load average
# (other processes on the machine make every number worse). Run through scripts/bench.sh
# (Release build in build-bench/), or directly with GMS_BIN set. Numbers go to
# docs/benchmarks.md "## Sweeps".
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${GMS_BIN:-${GMS_BUILD:-$PWD/build-bench}/cli/gpumemsim}"
logs="${GMS_SHARED_DIR:-$PWD/../shared}/traces/dtr-iclr21"
repeat="${GMS_BENCH_REPEAT:-3}"
[ -x "$bin" ] || { echo "sweep.sh: $bin is missing; run scripts/bench.sh sweep" >&2; exit 1; }
[ -d "$logs" ] || { echo "sweep.sh: no DTR logs in $logs (set GMS_SHARED_DIR)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cores=$(nproc)
args=("$logs"/*.log --budgets 0.1:1.0:0.1 --quiet)
echo "command: gpumemsim sweep ../shared/traces/dtr-iclr21/*.log --budgets 0.1:1.0:0.1 -j N --db fresh.db"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%4s %10s %10s %9s %12s\n' jobs best_s runs/s speedup sim_work_s
base=""
for j in $(seq 1 "$cores"); do
  best=""
  for _ in $(seq 1 "$repeat"); do
    rm -f "$tmp"/r.db*
    t0=$(date +%s.%N)
    "$bin" sweep "${args[@]}" -j "$j" --db "$tmp/r.db"
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
  done
  runs=$("$bin" db export "$tmp/r.db" --csv | tail -n +2 | wc -l)
  work=$("$bin" db export "$tmp/r.db" --csv | awk -F, 'NR > 1 {w += $19} END {printf "%.2f", w}')
  [ -z "$base" ] && base=$best
  printf '%4d %10.2f %10.1f %8.2fx %12s\n' "$j" "$best" "$(echo "$runs / $best" | bc -l)" \
    "$(echo "$base / $best" | bc -l)" "$work"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
