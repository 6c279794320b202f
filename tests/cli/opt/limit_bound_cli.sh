#!/usr/bin/env bash
# A time-limited op-level MILP whose LP the limit stops (issue 28, item 3): the gap is to the
# boundary bound, taken first (well under a second), not unknown; text and JSON say which
# bound it is. Without a limit, or when the LP finishes, the bound stays the LP's.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
U="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
# 295 nodes: its LP takes a minute or more; a 3 s limit stops it
"$GMS_BIN" optimal "$U" --coarsen outputs --budget 0.7 --time-limit 3 --seed-policies none \
  --json >a.json 2>err || fail "limited: exit $?: $(cat err)"
python3 - a.json <<'PY' || fail "limited: $(head -60 a.json)"
import json, sys
d = json.load(open(sys.argv[1]))
# the limit stops the LP; whether CBC then returns by itself or is killed depends on the load
assert d["status"] == "feasible", d["status"]
assert d["lower_bound_from"] == "boundary" and d["program_too_big_bytes"] is None
assert d["compute"] <= d["lower_bound"] <= d["objective"] + 1e-12, (d["lower_bound"], d["objective"])
assert d["gap"] is not None and abs(d["gap"] - (d["objective"] - d["lower_bound"]) / d["objective"]) < 1e-9
PY
"$GMS_BIN" optimal "$U" --coarsen outputs --budget 0.7 --time-limit 3 --seed-policies none \
  >a.txt 2>err || fail "text: $(cat err)"
grep -q "lower_bound: .*(the boundary bound: the time limit stopped the LP)" a.txt \
  && grep -q "^gap: *[0-9.]*%" a.txt || fail "text: $(cat a.txt)"
# the same bound as --bound boundary asks for alone
b=$("$GMS_BIN" optimal "$U" --coarsen outputs --budget 0.7 --bound boundary --json) || fail "boundary"
python3 -c "
import json, sys
a, b = json.load(open('a.json')), json.loads(sys.argv[1])
assert abs(a['lower_bound'] - b['lower_bound']) <= 1e-9 * b['lower_bound'], (a['lower_bound'], b['lower_bound'])
" "$b" || fail "bounds differ: $b"
# an LP that finishes gives its bound (lp_bound); the gap is to the higher of it and the
# boundary bound, and lower_bound_from says which (here the boundary bound is the higher)
"$GMS_BIN" optimal "$U" --coarsen layers --budget 1.3 --time-limit 60 --seed-policies none --json \
  >c.json 2>err || fail "layers: $(cat err)"
b=$("$GMS_BIN" optimal "$U" --coarsen layers --budget 1.3 --bound boundary --json) || fail "layers boundary"
python3 -c "
import json, sys
d, b = json.load(open('c.json')), json.loads(sys.argv[1])
lp, bb = d['lp_bound'], b['lower_bound']
assert lp is not None and abs(d['lower_bound'] - max(lp, bb)) <= 1e-9 * d['lower_bound'], (d['lower_bound'], lp, bb)
assert d['lower_bound_from'] == ('boundary' if bb > lp else 'lp'), (d['lower_bound_from'], lp, bb)
if d['status'] != 'optimal':
    assert abs(d['gap'] - (d['objective'] - d['lower_bound']) / d['objective']) < 1e-9
" "$b" || fail "layers bound: $(head -40 c.json)"
echo ok
