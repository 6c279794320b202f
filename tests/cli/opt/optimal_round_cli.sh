#!/usr/bin/env bash
# optimal --round (docs/optimal.md, "The rounding hook"): opt-in, so without it CBC's search
# is given no hook (round_calls 0, rounded false); with --time-limit the hook sees the
# search's LP solutions (round_calls > 0) and the answer is never worse than without it (here
# both prove the same optimum, no worse than the seed). It does nothing outside a
# time-limited MILP search, so it is refused there: without --time-limit, with --relax,
# --approx or --bound (one line, exit 2, nothing on stdout).
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"

# a 16-node training graph (8 layers forward, 8 backward, skips; as test_opt_child.c's
# training_graph(8)): CBC needs a search with LP solutions, and proves it in about a second
python3 - <<'PY' || fail "graph"
import json
L = 8; n = 2 * L; nodes = []
for v in range(n):
    ins = [v - 1] if v > 0 else []
    if v >= L:
        tw = n - 1 - v
        ins += [i for i in (tw, tw - 1) if i >= 0 and i != v - 1]
    elif v >= 2 and v % 3 == 0:
        ins.append(v - 2)
    nodes.append({"name": "t%d" % v, "cost": 1 + (v * 7) % 10, "bytes": 10 + (v * 13) % 41,
                  "inputs": ins})
json.dump({"constant_bytes": 0, "nodes": nodes}, open("g.json", "w"))
PY

"$GMS_BIN" optimal g.json --budget 0.7 --time-limit 60 --json >plain.json 2>err \
  || fail "without --round: $(cat err plain.json)"
"$GMS_BIN" optimal g.json --budget 0.7 --time-limit 60 --round --json >round.json 2>err \
  || fail "with --round: $(cat err round.json)"
python3 - <<'PY' || fail "--round: $(cat plain.json round.json)"
import json
p = json.load(open("plain.json")); r = json.load(open("round.json"))
# opt-in: no hook without it
assert p["round_calls"] == 0 and p["rounded"] is False, p
# with it the search's LP solutions reach the hook
assert r["round_calls"] >= 1, r["round_calls"]
# never worse: the same proven optimum, at most the seed's
assert p["status"] == r["status"] == "optimal", (p["status"], r["status"])
assert abs(p["objective"] - r["objective"]) <= 1e-9 * p["objective"], (p["objective"], r["objective"])
assert r["objective"] <= r["seed_objective"] + 1e-9, r
PY
txt=$("$GMS_BIN" optimal g.json --budget 0.7 --time-limit 60 --round 2>/dev/null) || fail "text: $txt"
obj=$(python3 -c 'import json; print("%.9g" % json.load(open("plain.json"))["objective"])')
grep -q "^status: *optimal (MILP" <<<"$txt" && grep -q "^objective: *$obj ms" <<<"$txt" \
  || fail "text: not the optimum $obj: $txt"

# refused where it would do nothing
for extra in "" "--time-limit 5 --relax" "--time-limit 5 --approx" "--time-limit 5 --bound boundary"; do
  # shellcheck disable=SC2086
  "$GMS_BIN" optimal g.json --budget 0.7 --round $extra >out 2>err
  rc=$?
  [ "$rc" -eq 2 ] || fail "--round $extra: exit $rc, $(cat err out)"
  [ "$(wc -l <err)" -eq 1 ] && grep -q "^gpumemsim optimal: --round rounds the LP solutions of a time-limited MILP search" err \
    || fail "--round $extra: message $(cat err)"
  [ -s out ] && fail "--round $extra wrote output: $(cat out)"
done
grep -q "give --time-limit" < <("$GMS_BIN" optimal g.json --budget 0.7 --round 2>&1) \
  || fail "no word on --time-limit"
grep -q "drop --relax, --approx or --bound" < <("$GMS_BIN" optimal g.json --budget 0.7 --round --relax --time-limit 5 2>&1) \
  || fail "no word on --relax"
echo ok
