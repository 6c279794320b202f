# Shared by the traces CLI tests: strict mode, a fresh temp folder, fail/expect helpers.
set -euo pipefail
: "${GMS_BIN:?GMS_BIN must point at the gpumemsim binary (run through ctest)}"
: "${GMS_SHARED_DIR:?GMS_SHARED_DIR must point at the shared test data (run through ctest)}"
: "${GMS_TMP:?GMS_TMP must name a scratch folder (run through ctest)}"
rm -rf "$GMS_TMP"
mkdir -p "$GMS_TMP"
T=$GMS_TMP
DTR_DIR=$GMS_SHARED_DIR/traces/dtr-iclr21
# a test that needs no shared data (registered without NEEDS_SHARED) sets GMS_NO_SHARED=1
if [ "${GMS_NO_SHARED:-0}" != 1 ]; then
  [ -d "$DTR_DIR" ] || { echo "FAIL: missing test data $DTR_DIR" >&2; exit 1; }
fi

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_fail WHAT CMD...: runs CMD, which must exit non-zero; its output goes to
# $T/cmd.stdout and $T/cmd.stderr.
expect_fail() {
  local what=$1; shift
  if "$@" >"$T/cmd.stdout" 2>"$T/cmd.stderr"; then fail "$what: succeeded: $*"; fi
}

# expect_err_matches WHAT REGEX: the last failure's stderr must match REGEX (grep -E).
expect_err_matches() {
  grep -Eq -- "$2" "$T/cmd.stderr" || fail "$1: stderr '$(cat "$T/cmd.stderr")' does not match /$2/"
}
