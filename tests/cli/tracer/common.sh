# Shared by the tracer CLI tests: tests/cli/common.sh (strict mode, a fresh temp folder $T,
# fail, expect_fail, expect_err_matches), a stand-in tracer library, run_rc, no_leftovers.
# shellcheck source=tests/cli/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
# a stand-in tracer library: the jobs here never initialise CUDA, so it is never loaded
: >"$T/libgpumemsim-tracer.so"
export GMS_TRACER_LIB=$T/libgpumemsim-tracer.so

# run_rc CMD...: runs CMD, stores its exit status in RC, stdout/stderr in $T/cmd.{stdout,stderr}.
run_rc() {
  set +e
  "$@" >"$T/cmd.stdout" 2>"$T/cmd.stderr"
  RC=$?
  set -e
}

# no_leftovers WHAT: no output trace, temp file or raw directory is left in $T.
no_leftovers() {
  local left
  left=$(find "$T" -name 'out.gmt*' | head -5)
  [ -z "$left" ] || fail "$1: left behind: $left"
}
