#!/usr/bin/env bash
# End-to-end: checkpoint planners in 'sim' (--policy ckpt-all|ckpt-sqrt, --policy-args, the
# per-iteration report in text and JSON, --perfetto), where they are refused with a clear
# error (fit, dtr with --policy-args), and on a synthetic transformer with varying input.
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
}

"$GMS_BIN" synth --model transformer --layers 4 --hidden 256 --heads 4 --seq 128 \
  --iterations 4 --vary-input 64:192 -o tf.gmt >/dev/null || fail "synth"
"$GMS_BIN" sim --list-policies | grep -Eq '^ckpt-sqrt +planner: ' || fail "ckpt-sqrt not listed"

# ckpt-all: every layer of every iteration checkpointed, no eviction, some recomputation; the
# per-iteration recompute adds up to the run's, and each iteration's plan names its layers
all=$("$GMS_BIN" sim tf.gmt --policy ckpt-all --json) || fail "sim ckpt-all"
[ "$(echo "$all" | field 'd["status"], d["policy"], d["policy_args"], d["evictions"]')" = \
  "ok ckpt-all  0" ] || fail "ckpt-all run: $all"
[ "$(echo "$all" | field 'len(d["iterations"]), d["planner"]["iterations"]')" = "4 4" ] ||
  fail "not 4 iterations reported: $all"
[ "$(echo "$all" | field 'sum(i["recompute_ns"] for i in d["iterations"]) == d["remat_compute"] > 0')" = True ] ||
  fail "iteration recompute does not add up: $all"
[ "$(echo "$all" | field 'all(i["checkpointed"] == i["layers"] > 0 and len(i["plan"].split(",")) == i["layers"] for i in d["iterations"])')" = True ] ||
  fail "ckpt-all left a layer out: $all"
[ "$(echo "$all" | field 'all(i["input_size"] > 0 and i["predicted_peak"] is None and i["cache"] is None for i in d["iterations"])')" = True ] ||
  fail "input sizes, predictions or cache wrong: $all"
[ "$(echo "$all" | field 'max(i["peak_memory"] for i in d["iterations"]) == d["peak_memory"]')" = True ] ||
  fail "the run's peak is not its largest iteration peak: $all"

# the default replay peaks higher and recomputes nothing
plain=$("$GMS_BIN" sim tf.gmt --json) || fail "sim"
[ "$(echo "$plain" | field 'd["peak_memory"]')" -gt "$(echo "$all" | field 'd["peak_memory"]')" ] ||
  fail "ckpt-all does not lower the peak"
echo "$plain" | grep -q '"iterations"' && fail "an eviction policy run reports iterations"

# ckpt-sqrt: fewer layers checkpointed than ckpt-all, less recomputation
sq=$("$GMS_BIN" sim tf.gmt --policy ckpt-sqrt --json) || fail "sim ckpt-sqrt"
[ "$(echo "$sq" | field 'd["status"]')" = ok ] || fail "ckpt-sqrt: $sq"
[ "$(echo "$sq" | field 'd["planner"]["checkpoints"]')" -lt \
  "$(echo "$all" | field 'd["planner"]["checkpoints"]')" ] || fail "ckpt-sqrt checkpoints as many"
[ "$(echo "$sq" | field 'd["remat_compute"]')" -lt "$(echo "$all" | field 'd["remat_compute"]')" ] ||
  fail "ckpt-sqrt recomputes as much as ckpt-all"

# text: the planner summary
"$GMS_BIN" sim tf.gmt --policy ckpt-all | grep -Eq '^planner +4 iterations planned' ||
  fail "no planner line in the text report"

# a budget under the planner's peak: oom (never an eviction), exit 0, the iteration says so
peak=$(echo "$all" | field 'd["peak_memory"]')
oom=$("$GMS_BIN" sim tf.gmt --policy ckpt-all --budget "$((peak - 1))B" --json 2>/dev/null) ||
  fail "sim at a small budget failed"
[ "$(echo "$oom" | field 'd["status"], d["evictions"], d["iterations"][-1]["status"]')" = \
  "oom 0 oom" ] || fail "small budget: $oom"
ok=$("$GMS_BIN" sim tf.gmt --policy ckpt-all --budget "${peak}B" --json) || fail "sim"
[ "$(echo "$ok" | field 'd["status"]')" = ok ] || fail "the planner's own peak does not fit"

# the timeline shows the re-runs
"$GMS_BIN" sim tf.gmt --policy ckpt-all --perfetto run.json >/dev/null || fail "--perfetto"
remats=$(echo "$all" | field 'd["remats"]')
[ "$(python3 -c "import json; d=json.load(open('run.json')); print(sum(1 for e in d['traceEvents'] if e.get('cat') == 'remat'))")" = "$remats" ] ||
  fail "perfetto remat slices differ from $remats"

# --policy-args: canonical, checked by the planner, refused for an eviction policy
expect_fail 2 "not KEY=VALUE" "$GMS_BIN" sim tf.gmt --policy ckpt-all --policy-args warmup
expect_fail 2 "given twice" "$GMS_BIN" sim tf.gmt --policy ckpt-all --policy-args a=1,a=2
expect_fail 1 "planner ckpt-all has no parameter 'x'" \
  "$GMS_BIN" sim tf.gmt --policy ckpt-all --policy-args x=1
expect_fail 2 "policy 'dtr' takes none" "$GMS_BIN" sim tf.gmt --policy dtr --policy-args x=1
expect_fail 2 "planner 'ckpt-sqrt' never evicts" \
  "$GMS_BIN" sim tf.gmt --policy ckpt-sqrt --budget 0.9 --sample 8
expect_fail 2 "is a checkpoint planner: this command runs eviction policies and solved schedules only" \
  "$GMS_BIN" fit tf.gmt --policy ckpt-all --max-overhead 1.5
echo PASS
