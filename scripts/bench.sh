#!/usr/bin/env bash
# Runs every benchmark (scripts/bench/*.sh) against a Release build in build-bench/ and prints
# the numbers that docs/benchmarks.md records. Not part of the tests: numbers depend on the
# machine. Usage: scripts/bench.sh [AREA...]   (AREA = a script of scripts/bench/ without .sh:
# trace, sim, sweep, memory, plugins, scale (about half an hour), tracer, ...; default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j "$(nproc)" >/dev/null
export GMS_BIN="$PWD/build-bench/cli/gpumemsim" GMS_BUILD="$PWD/build-bench"
export GMS_SHARED_DIR="${GMS_SHARED_DIR:-$PWD/../shared}"
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
areas=("$@")
[ ${#areas[@]} -eq 0 ] && areas=($(ls scripts/bench/*.sh | xargs -n1 basename | sed 's/\.sh$//'))
for a in "${areas[@]}"; do
  echo "== $a"
  bash "scripts/bench/$a.sh"
done
