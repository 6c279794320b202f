#!/usr/bin/env bash
# A time-limited MILP improves its seed by the window search first (issue 28, item 3): on a
# 24-node training chain at 0.6 the greedy seed (86 ms) is improved by re-solving windows
# around it; --json's "improvement" says from what, by how many windows, and "answer_from"
# where the answer came from; the schedule is correct (checked here, independently), fits the
# budget and costs what it says; --no-improve and an unlimited solve run no window search.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
# this test pins the window search itself: the chain's program (5,230 nonzeros) would go to
# CBC whole first, which proves it (opt_first.h; tests/cli/opt/solver_first_cli.sh)
export GMS_OPT_SOLVER_FIRST_NONZEROS=0
write_training_chain 12 chain.json || fail "the chain graph"

"$GMS_BIN" optimal chain.json --budget 0.6 --time-limit 40 --json >a.json 2>err \
  || fail "window search: $(cat err) $(head -c 2000 a.json)"
python3 - <<'PY' || fail "improved answer: $(head -c 3000 a.json)"
import json
d = json.load(open("a.json"))
g = json.load(open("chain.json"))["nodes"]
imp = d["improvement"]
assert imp["from"] in ("greedy", "checkpoint-all"), imp
assert imp["windows"] >= 1 and imp["windows_improved"] >= 1, imp
assert imp["objective"] < imp["from_objective"] - 1e-9, imp
assert d["seed_from"] == "window-search", d["seed_from"]
assert abs(d["seed_objective"] - imp["objective"]) < 1e-9, (d["seed_objective"], imp)
assert d["answer_from"] in ("window-search", "solver"), d["answer_from"]
assert d["status"] in ("optimal", "feasible"), d["status"]
assert d["objective"] <= imp["objective"] + 1e-9, (d["objective"], imp)
assert d["peak"] <= d["budget"], (d["peak"], d["budget"])
# the schedule, checked here: each computed node's inputs were computed before it in the
# stage or kept into it, each kept node was kept or computed in the stage before, and the
# compute adds up to the objective
kept, cost = set(), 0.0
for st in d["schedule"]:
    done = set()
    for v in st["compute"]:
        for u in g[v]["inputs"]:
            assert u in done or u in kept, ("stage", st["stage"], "node", v, "input", u)
        done.add(v)
        cost += g[v]["cost"]
    assert st["stage"] in done, st
    assert set(st["keep"]) <= kept | done, st
    kept = set(st["keep"])
assert abs(cost - d["objective"]) < 1e-9, (cost, d["objective"])
PY

txt=$("$GMS_BIN" optimal chain.json --budget 0.6 --time-limit 40 2>err) || fail "text: $(cat err)"
grep -q "^improved: *greedy ([0-9.]* ms) by the window search: [1-9][0-9]* of [0-9]* windows" <<<"$txt" \
  || fail "no improved line: $txt"
grep -q "^answer from: *\(window-search\|solver\)$" <<<"$txt" || fail "no answer line: $txt"

# --no-improve, and a solve without a limit: no window search
"$GMS_BIN" optimal chain.json --budget 0.6 --time-limit 40 --no-improve --json >n.json \
  || fail "--no-improve: $(head -c 2000 n.json)"
"$GMS_BIN" optimal chain.json --budget 0.6 --json >u.json || fail "unlimited: $(head -c 2000 u.json)"
for f in n.json u.json; do
  python3 -c "
import json
d = json.load(open('$f'))
assert d['improvement'] is None and d['seed_from'] != 'window-search', d
assert d['answer_from'] in ('seed', 'solver'), d['answer_from']
" || fail "$f: $(head -c 2000 $f)"
done
"$GMS_BIN" optimal --help | grep -q -- "--no-improve" || fail "help"
exit 0
