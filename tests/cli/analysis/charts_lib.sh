#!/usr/bin/env bash
# Shared helpers of the chart and filter CLI tests (sourced). They use the generated sample
# traces in traces/samples, not the third-party data in ../shared.
set -euo pipefail
: "${GMS_BIN:?GMS_BIN must point at gpumemsim}" "${GMS_TMP:?}" "${GMS_SOURCE_DIR:?}"
# shellcheck disable=SC2034 # used by the scripts that source this
SAMPLES="$GMS_SOURCE_DIR/traces/samples"
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP/tmp" && cd "$GMS_TMP"
export TMPDIR="$GMS_TMP/tmp"

fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs "$@" expecting failure; the message must match $1 (an ERE).
expect_fail() {
  local pattern=$1; shift
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "expected failure from: $* (output: $out)"
  grep -Eq -e "$pattern" <<<"$out" || fail "message of '$*' lacks /$pattern/: $out"
}

# The datablock named $2 ("$trace1") of the kept gnuplot script $1.
datablock() { awk -v name="$2" '$1 == name && $2 == "<<" { on = 1; next } on && $0 == "EOD" { exit } on' "$1"; }

# The style of policy $2 in script $1: its `set style line` less the line number.
policy_style() { sed -n "s/^set style line [0-9]* \(.*\) # $2\$/\1/p" "$1"; }
