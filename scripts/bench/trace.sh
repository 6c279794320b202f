#!/usr/bin/env bash
# Trace format benchmark: for each DTR paper log, .gmt bytes per event against the JSON log,
# `gpumemsim convert` throughput (log -> .gmt, whole process) and .gmt read throughput (one
# core, tests/bench/gmt_read_bench); then the same read/write numbers on a 10M-event synthetic
# trace shaped like the logs. Run through scripts/bench.sh (Release build in build-bench/), or
# directly with GMS_BUILD pointing at a build tree. Numbers go to docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${GMS_BUILD:-$PWD/build-bench}"
bin="${GMS_BIN:-$build/cli/gpumemsim}"
bench="$build/tests/bench/gmt_read_bench"
logs="${GMS_SHARED_DIR:-$PWD/../shared}/traces/dtr-iclr21"
for f in "$bin" "$bench"; do
  if [ ! -x "$f" ]; then
    echo "trace.sh: $f is missing; run scripts/bench.sh trace (or build $build)" >&2
    exit 1
  fi
done
[ -d "$logs" ] || { echo "trace.sh: no DTR logs in $logs (set GMS_SHARED_DIR)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.*[ ]$1=\([0-9.]*\).*/\1/p"; }   # value of key=value in a bench line

printf '%-14s %9s %11s %9s %9s %9s %13s %13s %13s\n' log events json_B json_B/ev gmt_B \
  gmt_B/ev convert_ev/s read_ev/s read_ev/cpu_s
tot_ev=0; tot_gmt=0; tot_json=0
for log in "$logs"/*.log; do
  name=$(basename "$log" | cut -d- -f1)
  out="$tmp/$name.gmt"
  best=""
  for _ in 1 2 3 4 5; do   # convert: best of 5 runs, whole process wall time
    t0=$(date +%s.%N)
    "$bin" convert "$log" -o "$out" >/dev/null
    t1=$(date +%s.%N)
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" \
      'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.6f", best }')
  done
  line=$("$bench" "$out" 1)
  ev=$(echo "$line" | field events)
  gmt=$(stat -c %s "$out"); json=$(stat -c %s "$log")
  rd=$(echo "$line" | field events_per_s)
  rdc=$(echo "$line" | field cpu_events_per_s)
  awk -v n="$name" -v ev="$ev" -v json="$json" -v gmt="$gmt" -v t="$best" -v rd="$rd" \
    -v rdc="$rdc" 'BEGIN { printf "%-14s %9d %11d %9.1f %9d %9.3f %13.0f %13.0f %13.0f\n",
                           n, ev, json, json / ev, gmt, gmt / ev, ev / t, rd, rdc }'
  tot_ev=$((tot_ev + ev)); tot_gmt=$((tot_gmt + gmt)); tot_json=$((tot_json + json))
done
awk -v ev="$tot_ev" -v json="$tot_json" -v gmt="$tot_gmt" \
  'BEGIN { printf "%-14s %9d %11d %9.1f %9d %9.3f\n", "all", ev, json, json / ev, gmt, gmt / ev }'

echo
echo "synthetic DTR-shaped trace, 10M events (gmt_read_bench --synth):"
"$bench" --synth 10000000 "$tmp/synth.gmt" 1 | sed 's/^/  write: /'
"$bench" "$tmp/synth.gmt" 2 | sed 's/^/  read:  /'
