# shellcheck shell=bash disable=SC2154 # me, k, repeat, traces, budgets, runs: the script sets them
# Sourced by scripts/bench/hybrid.sh and scripts/bench/swap.sh (it lives below lib/ so that
# scripts/bench.sh, which runs every scripts/bench/*.sh, does not take it for a benchmark):
# the user CPU of one sim run and the best of several rounds of such runs.
#
# One run's user CPU is the sim process with --seeds n+1 minus the same with --seeds 1, over
# n, so that the trace load cancels (--seeds repeats the run in one process whatever the
# policy); n starts at k and is raised fourfold while the n runs take under 0.3 s, since user
# CPU is counted in clock ticks. Within a round the runs of the old and the new binary
# alternate, so that load from other processes hits both alike.
#
# Before sourcing, the script sets me (its name, for messages), repeat and k. This file sets
# new, old (empty without GMS_OLD_BIN) and shared from the environment and checks them. The
# script then sets traces, budgets and runs ("which policy" pairs, which = new or old) and
# calls bench_rounds, which fills best["which|trace name|policy|budget"] (seconds).

new="${GMS_BIN:-$PWD/build/cli/gpumemsim}"
old="${GMS_OLD_BIN:-}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
[ -x "$new" ] || { echo "$me: $new is missing; build first or set GMS_BIN" >&2; exit 1; }
[ -z "$old" ] || [ -x "$old" ] || { echo "$me: GMS_OLD_BIN=$old is not executable" >&2; exit 1; }
TIMEFORMAT='%U'
bench_tmp=$(mktemp -d)
trap 'rm -rf "$bench_tmp"' EXIT
declare -A best

# Fails unless the first of traces exists (the DTR logs of $shared come first).
bench_need_traces() {
  [ -e "${traces[0]}" ] || { echo "$me: no DTR logs under $shared (set GMS_SHARED_DIR)" >&2; exit 1; }
}

# user CPU (s) of one process
ucpu() {
  local out
  out=$({ time "$@" >/dev/null 2>"$bench_tmp/err"; } 2>&1) ||
    { echo "$me: failed: $* ($(cat "$bench_tmp/err"))" >&2; exit 1; }
  echo "$out"
}

# user CPU (s) of one run of `BIN sim ARGS...`: (seeds n+1) - (seeds 1), over n; n = k,
# raised fourfold while the n runs take less than 0.3 s, up to 9000
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

# A trace's short name: a DTR log's model (resnet32-56-9000000000.0-... -> resnet32), a
# .gmt's file name without the extension.
trace_name() {
  local n
  n=$(basename "$1")
  n=${n%%-[0-9]*}
  echo "${n%.gmt}"
}

# repeat rounds of every run of runs on every trace at every budget, on PCIe 4 (dtr and lru
# refuse --link and run without); keeps each run's best in best[].
bench_rounds() {
  local t name b run which p bin c key link
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for _ in $(seq 1 "$repeat"); do
    for t in "${traces[@]}"; do
      name=$(trace_name "$t")
      for b in "${budgets[@]}"; do
        for run in "${runs[@]}"; do
          read -r which p <<< "$run"
          bin=$new
          [ "$which" = old ] && bin=$old
          link=(--link pcie4)
          case $p in dtr | lru) link=() ;; esac
          c=$(run_cpu "$bin" "$t" --policy "$p" --budget "$b" "${link[@]}")
          key="$which|$name|$p|$b"
          if [ -z "${best[$key]:-}" ] || awk -v c="$c" -v o="${best[$key]}" 'BEGIN { exit !(c < o) }'; then
            best[$key]=$c
          fi
        done
      done
    done
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
