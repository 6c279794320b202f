# The scaffolding the CLI tests' folder libraries share (sourced by plugins/, synth/, traces/
# and tracer/common.sh, each adding its own): strict mode, the variables ctest sets, a fresh
# temp folder $T, fail and the expect helpers.
set -euo pipefail
: "${GMS_BIN:?GMS_BIN must point at the gpumemsim binary (run through ctest)}"
: "${GMS_TMP:?GMS_TMP must name a scratch folder (run through ctest)}"
rm -rf "$GMS_TMP"
mkdir -p "$GMS_TMP"
T=$GMS_TMP

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_fail WHAT CMD...: CMD must exit non-zero; output in $T/cmd.stdout, $T/cmd.stderr.
expect_fail() {
  local what=$1; shift
  if "$@" >"$T/cmd.stdout" 2>"$T/cmd.stderr"; then fail "$what: succeeded: $*"; fi
}

# expect_err_matches WHAT REGEX: the last command's stderr must match REGEX (grep -E).
expect_err_matches() {
  grep -Eq -- "$2" "$T/cmd.stderr" || fail "$1: stderr '$(cat "$T/cmd.stderr")' does not match /$2/"
}

# meta FILE KEY: a header metadata value, from 'gpumemsim info --json'.
meta() { "$GMS_BIN" info "$1" --json | jq -r --arg k "$2" '.meta[$k]'; }
