#!/usr/bin/env bash
# End-to-end: 'optimal --formulation moccasin' (MOCCASIN's program, --copies) and '--bound
# boundary' on a hand-solved graph, and their bad options (exit 2, a sentence saying how).
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"

# the diamond of optimal_cli.sh: at 30 bytes a (cost 5) is computed twice, 14 ms in all
write_diamond diamond.json
out=$("$GMS_BIN" optimal diamond.json --budget 30B --formulation moccasin --json) || fail "moccasin: $out"
[ "$(echo "$out" | field 'd["status"], d["objective"], d["program"], d["copies"], d["recomputations"]')" \
  = "optimal 14.0 moccasin 2 1" ] || fail "moccasin C=2: $out"
out=$("$GMS_BIN" optimal diamond.json --budget 30B --formulation moccasin --copies max --json) \
  || fail "moccasin max: $out"
[ "$(echo "$out" | field 'd["objective"], d["copies"]')" = "14.0 max" ] || fail "moccasin max: $out"
# one computation per node cannot fit 30 bytes: infeasible, exit 1, said
"$GMS_BIN" optimal diamond.json --budget 30B --formulation moccasin --copies 1 >out 2>err
[ $? -eq 1 ] || fail "C=1 at 30 bytes: exit $?"
grep -q "infeasible" out && grep -q "no schedule fits" err || fail "C=1: $(cat out err)"
# the boundary bound: a must be dropped between c and e, so it is the optimum here
out=$("$GMS_BIN" optimal diamond.json --budget 30B --bound boundary --json) || fail "bound: $out"
[ "$(echo "$out" | field 'd["status"], round(d["objective"], 9), d["program"], d["mode"]')" \
  = "optimal 14.0 boundary relax" ] || fail "boundary bound: $out"
"$GMS_BIN" optimal diamond.json --budget 30B --bound boundary | grep -q "lower_bound: 14 ms" \
  || fail "boundary bound, text"
# below the floor the bound says infeasible with the usual sentence
"$GMS_BIN" optimal diamond.json --budget 29B --bound boundary >out 2>err
[ $? -eq 1 ] && grep -q "needs 30 B" err || fail "bound below the floor: $(cat out err)"

# bad options: exit 2, what and how
bad() { # want-in-message args...
  local want=$1; shift
  "$GMS_BIN" optimal diamond.json --budget 30B "$@" >out 2>err
  [ $? -eq 2 ] || fail "$* accepted"
  grep -q -- "$want" err || fail "$*: $(cat err)"
}
bad "give 'checkmate'" --formulation cplex
bad "with --formulation moccasin" --copies 3
bad "or 'max'" --formulation moccasin --copies 0
bad "or 'max'" --formulation moccasin --copies two
bad "built tightened" --formulation moccasin --tighten
bad "give 'lp'" --bound tight
bad "takes no --formulation" --bound boundary --formulation moccasin
bad "needs a value" --copies
echo ok
