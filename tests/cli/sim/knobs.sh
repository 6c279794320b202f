#!/usr/bin/env bash
# End-to-end: the replicas of the checkpointing knobs PyTorch users turn (issue 29) as 'sim'
# planners: rotor (Rotor's optimal persistent chain schedule). Runs on a small synthetic
# transformer whose iterations vary in length; checks what each planner must do, its reports
# and its refusals.
set -u
: "${GMS_BIN:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
expect_fail() { # expected exit status, message pattern, command
  local want=$1 pattern=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -eq "$want" ] || fail "exit $rc (not $want) from: $* ($out)"
  echo "$out" | grep -Eq -e "$pattern" || fail "message of '$*' lacks /$pattern/: $out"
  [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "more than one line from '$*': $out"
}

"$GMS_BIN" synth --model transformer --layers 4 --hidden 256 --heads 4 --seq 128 --vocab 1000 \
  --iterations 3 --vary-input 64:192 -o tf.gmt >/dev/null || fail "synth"

# --- rotor ---
"$GMS_BIN" sim --list-policies | grep -Eq '^rotor +planner: ' || fail "rotor not listed"
# without a budget nothing needs checkpointing
free=$("$GMS_BIN" sim tf.gmt --policy rotor --json) || fail "sim rotor"
[ "$(echo "$free" | field 'd["status"], d["remat_compute"], d["planner"]["checkpoints"]')" = "ok 0 0" ] ||
  fail "rotor without a budget checkpointed: $free"
# under a budget: fits, recomputes, and costs less than checkpointing every layer; every
# iteration is planned for its own length and the planning time is reported
all=$("$GMS_BIN" sim tf.gmt --policy ckpt-all --budget 0.7 --json) || fail "ckpt-all"
for b in 0.8 0.7; do
  r=$("$GMS_BIN" sim tf.gmt --policy rotor --budget $b --json) || fail "rotor at $b"
  [ "$(echo "$r" | field 'd["status"], d["remat_compute"] > 0, d["planner"]["iterations"]')" = "ok True 3" ] ||
    fail "rotor at $b: $r"
  [ "$(echo "$r" | field "d['overhead'] < $(echo "$all" | field 'd["overhead"]')")" = True ] ||
    fail "rotor at $b is not cheaper than ckpt-all: $r"
  [ "$(echo "$r" | field 'd["planner"]["plan_s"] > 0 and all(i["plan_ns"] > 0 for i in d["iterations"])')" = True ] ||
    fail "rotor's planning time is not reported: $r"
done
# the longer the iteration, the more it checkpoints (the same budget for every iteration)
r=$("$GMS_BIN" sim tf.gmt --policy rotor --budget 0.7 --json)
echo "$r" | field '"\n".join("%d %d" % (i["input_size"], i["checkpointed"]) for i in d["iterations"])' |
  sort -n | awk 'NR > 1 && $2 < prev { exit 1 } { prev = $2 }' ||
  fail "a longer iteration checkpoints fewer layers: $r"
# slots: Rotor's discretization, in the run's parameters; the same run twice is the same
a=$("$GMS_BIN" sim tf.gmt --policy rotor --budget 0.7 --policy-args slots=50 --json)
[ "$(echo "$a" | field 'd["policy_args"], d["status"]')" = "slots=50 ok" ] || fail "slots=50: $a"
b=$("$GMS_BIN" sim tf.gmt --policy rotor --budget 0.7 --policy-args slots=50 --json)
[ "$(echo "$a" | field 'd["overhead"], d["peak_memory"]')" = \
  "$(echo "$b" | field 'd["overhead"], d["peak_memory"]')" ] || fail "rotor is not deterministic"
expect_fail 1 'slots=0: give a whole number of memory slots' \
  "$GMS_BIN" sim tf.gmt --policy rotor --budget 0.7 --policy-args slots=0
expect_fail 1 'slots=1.5: give a whole number' \
  "$GMS_BIN" sim tf.gmt --policy rotor --budget 0.7 --policy-args slots=1.5
expect_fail 1 "planner rotor has no parameter 'slot'" \
  "$GMS_BIN" sim tf.gmt --policy rotor --budget 0.7 --policy-args slot=5

# --- sac ---
"$GMS_BIN" sim --list-policies | grep -Eq '^sac +planner: ' || fail "sac not listed"
full=$("$GMS_BIN" sim tf.gmt --policy ckpt-all --json) || fail "ckpt-all"
# the default is torchtitan's op SAC: the transformer blocks checkpointed (h.0 .. h.3, not
# the embeddings, the head or the loss), their mm outputs (but every second) saved, so it
# recomputes less than checkpointing whole layers and holds more
tt=$("$GMS_BIN" sim tf.gmt --policy sac --json) || fail "sac"
[ "$(echo "$tt" | field 'd["status"], d["planner"]["checkpoints"] == 3 * 4, d["iterations"][0]["plan"]')" = "ok True h.0,h.1,h.2,h.3" ] ||
  fail "sac did not checkpoint the blocks: $tt"
[ "$(echo "$tt" | field "0 < d['remat_compute'] < $(echo "$full" | field 'd["remat_compute"]')")" = True ] ||
  fail "sac's torchtitan preset recomputes no less than ckpt-all: $tt"
pre=$("$GMS_BIN" sim tf.gmt --policy sac --policy-args preset=torchtitan --json)
[ "$(echo "$pre" | field 'd["remat_compute"], d["peak_memory"]')" = \
  "$(echo "$tt" | field 'd["remat_compute"], d["peak_memory"]')" ] || fail "the default is not the preset"
# a save= list wraps every layer; saving more (synth's linear layers are addmm, its
# attention bmm) recomputes less, holds more
mm=$("$GMS_BIN" sim tf.gmt --policy sac --policy-args 'save=mm' --json)
[ "$(echo "$mm" | field 'd["planner"]["checkpoints"]')" = 21 ] || fail "save=mm wraps every layer: $mm"
more=$("$GMS_BIN" sim tf.gmt --policy sac --policy-args 'save=aten::addmm+bmm+mm' --json)
[ "$(echo "$more" | field "d['remat_compute'] < $(echo "$mm" | field 'd["remat_compute"]') and d['peak_memory'] > $(echo "$mm" | field 'd["peak_memory"]')")" = True ] ||
  fail "saving addmm, bmm and mm: $more"
# every=2: layer SAC, the 2nd and 4th block of each iteration checkpointed whole
ev=$("$GMS_BIN" sim tf.gmt --policy sac --policy-args every=2 --json)
[ "$(echo "$ev" | field 'd["status"], [i["plan"] for i in d["iterations"]][0]')" = "ok h.1,h.3" ] ||
  fail "every=2: $ev"
expect_fail 1 'preset=llama: unknown' "$GMS_BIN" sim tf.gmt --policy sac --policy-args preset=llama
expect_fail 1 'every=0' "$GMS_BIN" sim tf.gmt --policy sac --policy-args every=0
expect_fail 1 'preset= or save=, not both' \
  "$GMS_BIN" sim tf.gmt --policy sac --policy-args preset=torchtitan,save=mm

# --- ac-budget ---
"$GMS_BIN" sim --list-policies | grep -Eq '^ac-budget +planner: ' || fail "ac-budget not listed"
# solver=ilp is an exact branch and bound, not a MILP solver: --help and the list say so
help=$("$GMS_BIN" sim --help) || fail "sim --help"
grep -q 'solver=ilp is an exact branch and bound' <<<"$help" || fail "sim --help does not say what ilp is"
list=$("$GMS_BIN" sim --list-policies) || fail "list"
grep -Eq '^ac-budget +planner: .*ilp = exact branch and bound' <<<"$list" || fail "the list does not say what ilp is"
base=$("$GMS_BIN" sim tf.gmt --json) || fail "plain sim"
# budget 1 (torch's default min cut) keeps what backward needs: no recomputation, the plain peak
one=$("$GMS_BIN" sim tf.gmt --policy ac-budget --json) || fail "ac-budget"
[ "$(echo "$one" | field 'd["status"], d["remat_compute"], d["policy_args"]')" = "ok 0 " ] ||
  fail "ac-budget at budget 1 recomputes: $one"
[ "$(echo "$one" | field 'd["peak_memory"]')" = "$(echo "$base" | field 'd["peak_memory"]')" ] ||
  fail "ac-budget at budget 1 does not peak as the plain replay: $one"
# lower budgets down to 0.3: less memory, more recomputation (budget 0, inputs only, may
# peak higher than 0.3: everything comes back from the inputs at once); the three solvers
prev_peak=$(echo "$one" | field 'd["peak_memory"]'); prev_re=0
for b in 0.9 0.5 0.3 0; do
  [ "$b" = 0 ] && prev_peak=$(echo "$one" | field 'd["peak_memory"]')
  r=$("$GMS_BIN" sim tf.gmt --policy ac-budget --policy-args budget=$b --json) || fail "budget $b"
  peak=$(echo "$r" | field 'd["peak_memory"]'); re=$(echo "$r" | field 'd["remat_compute"]')
  [ "$(echo "$r" | field 'd["status"]')" = ok ] && [ "$peak" -le "$prev_peak" ] && [ "$re" -ge "$prev_re" ] ||
    fail "budget $b: peak $peak (before $prev_peak), recompute $re (before $prev_re)"
  prev_peak=$peak; prev_re=$re
done
for sv in greedy ilp; do
  "$GMS_BIN" sim tf.gmt --policy ac-budget --policy-args budget=0.5,solver=$sv,estimator=trace --json |
    field 'd["status"]' | grep -qx ok || fail "solver $sv"
done
[ "$prev_re" -gt 0 ] || fail "budget 0 recomputes nothing"
# bad input: one line, exit 1
expect_fail 1 'budget=1.5: give a fraction from 0' \
  "$GMS_BIN" sim tf.gmt --policy ac-budget --policy-args budget=1.5
expect_fail 1 'budget=-0.2: give a fraction' \
  "$GMS_BIN" sim tf.gmt --policy ac-budget --policy-args budget=-0.2
expect_fail 1 'solver=cplex: unknown; give dp' \
  "$GMS_BIN" sim tf.gmt --policy ac-budget --policy-args solver=cplex
expect_fail 1 'estimator=profile: unknown; give flops' \
  "$GMS_BIN" sim tf.gmt --policy ac-budget --policy-args estimator=profile
"$GMS_BIN" convert -q tf.gmt --to dtr-log -o tf.log || fail "convert"
grep -v '"BACKWARD"' tf.log >nobw.log
expect_fail 1 'iteration 0 has no backward pass \(no ANNOTATE BACKWARD marker\)' \
  "$GMS_BIN" sim nobw.log --policy ac-budget
echo ok
