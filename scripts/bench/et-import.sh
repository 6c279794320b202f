#!/usr/bin/env bash
# PyTorch Execution Trace import (docs/import-pytorch.md): wall time and peak memory of
# importing each shared ET (gmt_source open + every event), tests/bench/et_import_bench, 7 runs.
# Goal for the ResNet-50 ET (14k nodes): under 0.5 s, memory under 10x the uncompressed JSON.
# GMS_BUILD and GMS_SHARED_DIR as scripts/bench.sh sets them.
set -euo pipefail
: "${GMS_BUILD:?}"
et="${GMS_SHARED_DIR:-$PWD/../shared}/traces/pytorch-et"
for f in "$et"/*_et.json.gz; do
  printf "%-24s json %6.2f MiB  " "$(basename "$f" .json.gz)" \
    "$(gzip -dc "$f" | wc -c | awk '{ print $1 / 1048576 }')"
  "$GMS_BUILD/tests/bench/et_import_bench" "$f" 7
done
