# Shared by the traces CLI tests: tests/cli/common.sh (strict mode, a fresh temp folder $T,
# fail, expect_fail, expect_err_matches, meta), with the shared test data.
: "${GMS_SHARED_DIR:?GMS_SHARED_DIR must point at the shared test data (run through ctest)}"
# shellcheck source=tests/cli/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
DTR_DIR=$GMS_SHARED_DIR/traces/dtr-iclr21
# a test that needs no shared data (registered without NEEDS_SHARED) sets GMS_NO_SHARED=1
if [ "${GMS_NO_SHARED:-0}" != 1 ]; then
  [ -d "$DTR_DIR" ] || { echo "FAIL: missing test data $DTR_DIR" >&2; exit 1; }
fi
