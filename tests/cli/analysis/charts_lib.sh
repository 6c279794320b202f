#!/usr/bin/env bash
# Shared helpers of the chart and filter CLI tests (sourced). They use the generated sample
# traces in traces/samples, not the third-party data in ../shared.
# lib.sh: strict mode, the fresh $GMS_TMP and TMPDIR, SAMPLES, fail, expect_fail, stable_csv.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The datablock named $2 ("$trace1") of the kept gnuplot script $1.
datablock() { awk -v name="$2" '$1 == name && $2 == "<<" { on = 1; next } on && $0 == "EOD" { exit } on' "$1"; }

# The style of policy $2 in script $1: its `set style line` less the line number.
policy_style() { sed -n "s/^set style line [0-9]* \(.*\) # $2\$/\1/p" "$1"; }
