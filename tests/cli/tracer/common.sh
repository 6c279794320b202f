# Shared by the tracer CLI tests: strict mode, a fresh temp folder, fail/expect helpers.
set -euo pipefail
: "${GMS_BIN:?GMS_BIN must point at the gpumemsim binary (run through ctest)}"
: "${GMS_TMP:?GMS_TMP must name a scratch folder (run through ctest)}"
rm -rf "$GMS_TMP"
mkdir -p "$GMS_TMP"
T=$GMS_TMP
# a stand-in tracer library: the jobs here never initialise CUDA, so it is never loaded
: >"$T/libgpumemsim-tracer.so"
export GMS_TRACER_LIB=$T/libgpumemsim-tracer.so

fail() { echo "FAIL: $*" >&2; exit 1; }

# run_rc CMD...: runs CMD, stores its exit status in RC, stdout/stderr in $T/cmd.{stdout,stderr}.
run_rc() {
  set +e
  "$@" >"$T/cmd.stdout" 2>"$T/cmd.stderr"
  RC=$?
  set -e
}

# expect_err_matches WHAT REGEX: the last command's stderr must match REGEX (grep -E).
expect_err_matches() {
  grep -Eq -- "$2" "$T/cmd.stderr" || fail "$1: stderr '$(cat "$T/cmd.stderr")' does not match /$2/"
}

# no_leftovers WHAT: no output trace, temp file or raw directory is left in $T.
no_leftovers() {
  local left
  left=$(find "$T" -name 'out.gmt*' | head -5)
  [ -z "$left" ] || fail "$1: left behind: $left"
}
