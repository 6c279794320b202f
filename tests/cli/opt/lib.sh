# Shared by the opt CLI tests (sourced): the variables ctest sets, $GMS_TMP as the working
# folder, fail, field EXPR (a Python expression over the JSON on stdin, as d),
# write_diamond FILE and write_training_chain L FILE.
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

# A training chain of L forward and L backward nodes (opt_test_build.h's shape): backward
# node v reads v - 1 and its forward twin n - 1 - v; costs and bytes vary with v.
write_training_chain() {
  python3 - "$1" "$2" <<'PY'
import json, sys
L = int(sys.argv[1]); n = 2 * L; nodes = []
for v in range(n):
    ins = [v - 1] if v > 0 else []
    if v >= L and n - 1 - v != v - 1:
        ins.append(n - 1 - v)
    nodes.append({"name": "n%d" % v, "cost": 1 + (v * 7) % 5, "bytes": 10 + (v * 13) % 17,
                  "inputs": sorted(ins)})
json.dump({"constant_bytes": 0, "nodes": nodes}, open(sys.argv[2], "w"))
PY
}
