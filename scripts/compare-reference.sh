#!/usr/bin/env bash
# Replays every row of the reference table (simrd's results on the DTR paper's logs) with
# gpumemsim and prints a per-model, per-policy agreement table: rows, rows that agree on
# status/evictions/eager evictions/remat compute/peak memory/overhead (1e-9), rows whose
# overhead double is bit-identical, and our time vs simrd's. Mismatches are printed as diffs.
# Exit status 1 when any row disagrees.
# Usage: scripts/compare-reference.sh [--rows] [--repeat N]   (GMS_BIN, GMS_SHARED_DIR optional)
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED="${GMS_SHARED_DIR:-$PWD/../shared}"
BIN="${GMS_BIN:-}"
if [ -z "$BIN" ]; then
  cmake -S . -B build-compare -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-compare -j 2 --target gpumemsim >/dev/null
  BIN="$PWD/build-compare/cli/gpumemsim"
fi
exec "$BIN" sim --reference-table "$SHARED/reference/simrd-pareto.csv" \
  --traces "$SHARED/traces/dtr-iclr21" "$@"
