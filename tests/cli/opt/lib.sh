# Shared by the opt CLI tests (sourced): the variables ctest sets, $GMS_TMP as the working
# folder, fail, and field EXPR (a Python expression over the JSON on stdin, as d).
# Not strict (set -u only): the tests check each command's exit status themselves.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$GMS_TMP"
cd "$GMS_TMP" || exit 1
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
