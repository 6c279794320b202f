#!/usr/bin/env bash
# End-to-end: 'sim --policy checkmate|checkmate-approx' solves a trace's iteration and replays
# the schedule: replayed compute equals the solver's objective, overhead is it over the
# graph's compute, the peak fits the budget; an infeasible budget is status oom with the
# reason, exit 0; bad options exit 2 with a message; other policies are untouched; a time
# limit on the op-level graph is a hard stop whose answer the store caches.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
check_ok() { # $1: the JSON of an ok run
  python3 -c "
import json, sys
d = json.loads(sys.argv[1])
assert d['status'] == 'ok' and d['reason'] is None, d
assert abs(d['replayed_compute'] - d['objective']) <= 1e-9 * d['objective'], d
assert abs(d['overhead'] - d['replayed_compute'] / d['baseline_compute']) <= 1e-12, d
assert d['overhead'] >= 1 and d['peak_memory'] <= d['budget'], d
assert d['computes'] == d['nodes'] + d['remats'], d
print(d['remats'])" "$1"
}
# (the layer graph's peak is 1.51 x the trace's: its nodes hold a whole layer's outputs)
for pol in checkmate checkmate-approx; do
  out=$("$GMS_BIN" sim "$T" --policy $pol --coarsen layers --budget 2.0 --json) || fail "$pol at 2.0: $out"
  check_ok "$out" >/dev/null || fail "$pol at 2.0: $out"
done
out=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.5 --json) || fail "at 1.5: $out"
check_ok "$out" >/dev/null || fail "at 1.5: $out"
# the authors' rounding may find nothing that fits: an honest oom, never a schedule over budget
out=$("$GMS_BIN" sim "$T" --policy checkmate-approx --coarsen layers --budget 1.5 --json) || fail "approx 1.5: $out"
python3 -c "
import json, sys; d = json.loads(sys.argv[1])
assert d['status'] == 'oom' and d['reason'] or d['peak_memory'] <= d['budget'], d" "$out" \
  || fail "approx at 1.5: $out"
# tighter: the optimum recomputes something and still fits
out=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.2 --time-limit 60 --json) || fail "at 1.2: $out"
remats=$(check_ok "$out") || fail "at 1.2: $out"
[ "$remats" -gt 0 ] || fail "nothing recomputed at 1.2: $out"
txt=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.5) || fail "text: $txt"
echo "$txt" | grep -q "^status  *ok" || fail "text status: $txt"
echo "$txt" | grep -q "^overhead  *1\." || fail "text overhead: $txt"
# an infeasible budget: a result (oom, the reason, exit 0), not an error
out=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 0.5 --json) || fail "infeasible exit: $out"
python3 -c "
import json, sys; d = json.loads(sys.argv[1])
assert d['status'] == 'oom' and 'infeasible' in d['reason'] and d['overhead'] is None, d" "$out" \
  || fail "infeasible: $out"
# bad options: exit 2 and a sentence
"$GMS_BIN" sim "$T" --policy checkmate --coarsen layers 2>err; [ $? -eq 2 ] || fail "no budget accepted"
grep -q "needs a --budget" err || fail "no word on the budget: $(cat err)"
"$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 0.8 --seed 2 2>err; [ $? -eq 2 ] || fail "--seed accepted"
grep -q "does not apply" err || fail "no word on --seed: $(cat err)"
"$GMS_BIN" sim "$T" --policy=checkmate --coarsen layers --budget 0.8 --iteration 9 2>err; [ $? -eq 2 ] || fail "iteration 9"
"$GMS_BIN" sim nosuch.gmt --policy checkmate --coarsen layers --budget 0.8 2>err; [ $? -eq 1 ] || fail "missing trace"
"$GMS_BIN" sim --policy checkmate --help | grep -q "checkmate-approx" || fail "no help"
# the time limit is a hard stop: op level at 0.7 (CBC's root ran 252 s past 20 s before)
# answers within 2 s + the grace (the LP or CBC killed, or the search skipped) with the seed,
# which replays; the store keeps it under its time limit, with the same gap (null when the
# limit stopped the LP) and no killed flag
rm -f lim.db
t0=$(date +%s.%N)
out=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen none --budget 0.7 --time-limit 2 \
      --db lim.db --json) || fail "op level, 2 s: $out"
wall=$(python3 -c "print($(date +%s.%N) - $t0)")
check_ok "$out"
python3 -c "
import json, sys
d = json.loads(sys.argv[1])
assert d['solver_status'] == 'feasible' and d['killed_at_limit'] in (True, False), d
assert d['solve_s'] <= $wall < 2 + 5, ($wall, d)" "$out" || fail "2 s limit: wall $wall s: $out"
again=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen none --budget 0.7 --time-limit 2 \
        --db lim.db --json) || fail "op level again: $again"
python3 -c "
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert b['cached'] is True and b['killed_at_limit'] is None, b
assert (a['objective'], a['gap'], a['solve_s']) == (b['objective'], b['gap'], b['solve_s']), (a, b)
" "$out" "$again" || fail "cached limited answer differs: $out / $again"
# the other policies still take their own path
out=$("$GMS_BIN" sim "$T" --policy dtr --budget 0.7 --json) || fail "dtr: $out"
echo "$out" | grep -q '"semantics": "simrd"' || fail "dtr went elsewhere: $out"
echo ok
