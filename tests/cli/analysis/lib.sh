#!/usr/bin/env bash
# Shared helpers of the analysis CLI tests (sourced).
set -euo pipefail
: "${GMS_BIN:?GMS_BIN must point at gpumemsim}" "${GMS_TMP:?}"
# The DTR logs, for the tests registered NEEDS_SHARED (tests/cli/analysis/CMakeLists.txt); the
# chart tests on the project's own samples run without them.
LOGS="${GMS_SHARED_DIR:-}/traces/dtr-iclr21"
if [ -d "$LOGS" ]; then
  # shellcheck disable=SC2034 # used by the scripts that source this
  RESNET=$(ls "$LOGS"/resnet32-*.log)
  # shellcheck disable=SC2034
  UNET=$(ls "$LOGS"/unet-*.log)
  # shellcheck disable=SC2034
  TRANSFORMER=$(ls "$LOGS"/transformer-*.log)
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
  echo "$out" | grep -Eq -e "$pattern" || fail "message of '$*' lacks /$pattern/: $out"
}

# Fails when a temporary output file (NAME.tmp-XXXXXX) was left in the current directory.
no_temp_files() {
  local f
  for f in *.tmp-*; do
    [ -e "$f" ] && fail "a temporary file was left behind: $f"
  done
  return 0
}
