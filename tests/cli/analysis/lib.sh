#!/usr/bin/env bash
# Shared helpers of the analysis CLI tests (sourced).
set -euo pipefail
: "${GMS_BIN:?GMS_BIN must point at gpumemsim}" "${GMS_TMP:?}"
: "${GMS_SOURCE_DIR:?GMS_SOURCE_DIR must point at the checkout (run through ctest)}"
# Sweeps, stores and charts are tested on the project's own samples (traces/samples/), so they
# run on any clone; only tests whose subject is the DTR paper's logs read ../shared, through
# DTR_RESNET and DTR_UNET (those tests are registered NEEDS_SHARED).
SAMPLES="$GMS_SOURCE_DIR/traces/samples"
# shellcheck disable=SC2034 # used by the scripts that source this
RESNET="$SAMPLES/resnet-small.gmt"
# shellcheck disable=SC2034
UNET="$SAMPLES/unet-small.gmt"
# shellcheck disable=SC2034
TRANSFORMER="$SAMPLES/transformer-small.gmt"
LOGS="${GMS_SHARED_DIR:-}/traces/dtr-iclr21"
if [ -d "$LOGS" ]; then
  # shellcheck disable=SC2034
  DTR_RESNET=$(ls "$LOGS"/resnet32-*.log)
  # shellcheck disable=SC2034
  DTR_UNET=$(ls "$LOGS"/unet-*.log)
fi
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP/tmp" && cd "$GMS_TMP"
# Each test's own temporary folder: checks for leftover gnuplot files must not see the files
# of plot tests that CTest runs at the same time.
export TMPDIR="$GMS_TMP/tmp"

fail() { echo "FAIL: $*" >&2; exit 1; }

# The runs of a store as sorted CSV without wall time and creation time (the last two
# columns), i.e. what two equal sweeps must agree on.
stable_csv() { "$GMS_BIN" db export "$1" --csv | awk -F, -v OFS=, '{NF -= 2; print}' | sort; }

# Runs "$@" expecting failure; the message must match $1 (an ERE).
expect_fail() {
  local pattern=$1; shift
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "expected failure from: $* (output: $out)"
  grep -Eq -e "$pattern" <<<"$out" || fail "message of '$*' lacks /$pattern/: $out"
}

# Fails when a temporary output file (NAME.tmp-XXXXXX) was left in the current directory.
no_temp_files() {
  local f
  for f in *.tmp-*; do
    [ -e "$f" ] && fail "a temporary file was left behind: $f"
  done
  return 0
}
