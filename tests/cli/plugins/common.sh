# Shared by the plugin CLI tests: tests/cli/common.sh (strict mode, a fresh temp folder $T,
# fail, expect_fail, expect_err_matches, meta), with the source tree.
: "${GMS_SOURCE_DIR:?GMS_SOURCE_DIR must point at the source tree (run through ctest)}"
# shellcheck source=tests/cli/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
