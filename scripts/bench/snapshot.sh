#!/usr/bin/env bash
# PyTorch memory snapshots (docs/memory.md): wall time and memory of reading a snapshot with
# the pickle reader (tests/bench/snapshot_bench, 5 runs): the two shared snapshots and a
# synthetic one of 1M events (scripts/bench/snapshot-gen.py; needs python3).
# Goal: a 1M-event snapshot loads in under 1 s and under 10x its size in memory.
# GMS_BUILD and GMS_SHARED_DIR as scripts/bench.sh sets them.
set -euo pipefail
: "${GMS_BUILD:?}"
dir="${GMS_SHARED_DIR:-$PWD/../shared}/traces/pytorch-snapshots"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$(dirname "$0")/snapshot-gen.py" 1000000 "$tmp/synthetic-1M.pickle"
for f in "$dir"/*.pickle "$tmp/synthetic-1M.pickle"; do
  printf "%-52s %7.1f MiB  " "$(basename "$f")" \
    "$(stat -c %s "$f" | awk '{ print $1 / 1048576 }')"
  "$GMS_BUILD/tests/bench/snapshot_bench" "$f" 5
done
