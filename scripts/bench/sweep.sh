#!/usr/bin/env bash
# Sweep benchmark: does a sweep use every core? Sweeps the five DTR paper logs with every
# policy at budgets 0.1..1.0 (350 runs) into a fresh store with -j 1, 2, ..., $(nproc).
# Rounds are interleaved (-j 1, -j 2, ..., then again) GMS_BENCH_REPEAT times (default 3) so
# that load from other processes hits every setting alike; the best wall time of each is kept.
# Prints wall time, runs/s, speedup over -j 1 and CPU time (user+sys) / wall time, the load
# average (other processes on the machine make every number worse), and the machine's
# ceiling: the throughput of $(nproc) independent single-threaded sweeps at once, the most any
# -j could reach there. Run through
# scripts/bench.sh (Release build in build-bench/), or directly with GMS_BIN set. Numbers go
# to docs/benchmarks.md "## Sweeps".
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${GMS_BIN:-${GMS_BUILD:-$PWD/build-bench}/cli/gpumemsim}"
logs="${GMS_SHARED_DIR:-$PWD/../shared}/traces/dtr-iclr21"
repeat="${GMS_BENCH_REPEAT:-3}"
[ -x "$bin" ] || { echo "sweep.sh: $bin is missing; run scripts/bench.sh sweep" >&2; exit 1; }
[ -d "$logs" ] || { echo "sweep.sh: no DTR logs in $logs (set GMS_SHARED_DIR)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
calc() { awk "BEGIN { print $1 }"; }          # floating-point arithmetic
less_than() { awk "BEGIN { exit !($1 < $2) }"; }
TIMEFORMAT='%R %U %S'                         # bash's time: wall, user, sys (children included)

cores=$(nproc)
args=("$logs"/*.log --budgets 0.1:1.0:0.1 --quiet)
echo "command: gpumemsim sweep ../shared/traces/dtr-iclr21/*.log --budgets 0.1:1.0:0.1 -j N --db fresh.db"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The machine's own ceiling: $cores independent single-threaded sweeps at once (no sharing at
# all) against one alone. Virtual CPUs that share a physical core cap every program there.
ceiling_run() {
  local t0 t1 k
  t0=$(date +%s%N)
  for k in $(seq 1 "$cores"); do
    rm -f "$tmp/c$k".db*
    "$bin" sweep "${args[@]}" -j 1 --db "$tmp/c$k.db" &
  done
  wait
  t1=$(date +%s%N)
  calc "($t1 - $t0) / 1e9"
}
declare -A best cpu
ceil=""
for _ in $(seq 1 "$repeat"); do
  for j in $(seq 1 "$cores"); do
    rm -f "$tmp"/r.db*
    { time "$bin" sweep "${args[@]}" -j "$j" --db "$tmp/r.db"; } 2> "$tmp/time"
    read -r wall user sys < "$tmp/time"
    if [ -z "${best[$j]:-}" ] || less_than "$wall" "${best[$j]}"; then
      best[$j]=$wall
      cpu[$j]=$(calc "($user + $sys) / $wall")
    fi
  done
  c=$(ceiling_run)
  if [ -z "$ceil" ] || less_than "$c" "$ceil"; then ceil=$c; fi
done
runs=$("$bin" db export "$tmp/r.db" --csv | tail -n +2 | wc -l)
work=$("$bin" db export "$tmp/r.db" --csv | awk -F, 'NR > 1 {w += $19} END {printf "%.2f", w}')
printf '%4s %9s %9s %9s %13s\n' jobs wall_s runs/s speedup cpu/wall
for j in $(seq 1 "$cores"); do
  printf '%4d %9.2f %9.1f %8.2fx %13.2f\n' "$j" "${best[$j]}" "$(calc "$runs / ${best[$j]}")" \
    "$(calc "${best[1]} / ${best[$j]}")" "${cpu[$j]}"
done
printf 'machine ceiling: %d independent -j 1 sweeps at once take %.2fs: %.2fx the throughput of one\n' \
  "$cores" "$ceil" "$(calc "$cores * ${best[1]} / $ceil")"
echo "runs: $runs; simulator time summed over runs (last -j $cores sweep): ${work}s"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
