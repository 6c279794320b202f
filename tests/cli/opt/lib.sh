# Shared by the opt CLI tests (sourced): the variables ctest sets, $GMS_TMP as the working
# folder, fail, field EXPR (a Python expression over the JSON on stdin, as d) and
# write_diamond FILE.
# Not strict (set -u only): the tests check each command's exit status themselves.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$GMS_TMP"
cd "$GMS_TMP" || exit 1
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# The hand-solved diamond graph (optimal_cli.sh): a feeds b and c, they meet in d, e reads d
# and a; at 30 bytes exactly one recomputation, of a (cost 5), at stage 4: 14 ms in all.
write_diamond() {
  cat >"$1" <<'G'
{"nodes": [
 {"name": "a", "cost": 5, "bytes": 10},
 {"name": "b", "cost": 1, "bytes": 10, "inputs": [0]},
 {"name": "c", "cost": 1, "bytes": 10, "inputs": [0]},
 {"name": "d", "cost": 1, "bytes": 10, "inputs": [1, 2]},
 {"name": "e", "cost": 1, "bytes": 10, "inputs": [3, 0]}]}
G
}
