#!/usr/bin/env bash
# Tracer benchmark, the part that needs no GPU: how fast the lifter turns raw tracer records into
# a .gmt trace (what `gpumemsim record` does after the job ends), on a synthetic training-like
# raw file of 200,000 ops (2.4 million records), best of 3. The tracer's overhead on a running
# job needs a GPU: tests/gpu/run.sh measures it. Run through scripts/bench.sh (Release build in
# build-bench/), or directly with GMS_BUILD pointing at a build tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${GMS_BUILD:-$PWD/build-bench}"
bench="$build/tests/unit/tracer/lift_bench"
if [ ! -x "$bench" ]; then
  echo "tracer.sh: $bench is missing; run scripts/bench.sh tracer (or build $build)" >&2
  exit 1
fi
ops=${GMS_BENCH_TRACER_OPS:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "command: $bench $ops OUT.gmt (best of 3)"
for _ in 1 2 3; do
  "$bench" "$ops" "$tmp/lift.gmt" >"$tmp/out.txt"
  tail -n 1 "$tmp/out.txt"
done | awk '{ print $(NF - 1), $0 }' | sort -n | tail -n 1 | cut -d' ' -f2-   # fastest .gmt run
head -n 1 "$tmp/out.txt"
echo "trace: $(stat -c %s "$tmp/lift.gmt") bytes"
amap="$build/tests/unit/tracer/amap_bench"
if [ -x "$amap" ]; then
  echo
  echo "command: $amap 300 3000 30000 100000 (live-allocation map: flat array vs trc_amap)"
  "$amap" 300 3000 30000 100000
fi
