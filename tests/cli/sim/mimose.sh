#!/usr/bin/env bash
# End-to-end: the mimose and mimose-static planners (docs/planners.md) on the synth transformer
# of issue 11's goals (50 iterations, input 128:512): no oom at 0.6 of the largest iteration's
# peak, the predicted peak within 5% of the simulated one at every iteration after warm-up,
# less overhead than ckpt-all and mimose-static, the plan cache and the parameters in the
# report, and bad --policy-args refused with a message naming the parameter.
set -u
: "${GMS_BIN:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1

"$GMS_BIN" synth --model transformer --iterations 50 --vary-input 128:512 -o t.gmt -q \
  || fail "synth"
run() { "$GMS_BIN" sim t.gmt --budget 0.6 --json --policy "$@"; }
m=$(run mimose) || fail "sim mimose"
s=$(run mimose-static) || fail "sim mimose-static"
a=$(run ckpt-all) || fail "sim ckpt-all"

echo "$m" | jq -e '.status == "ok" and (.iterations | length) == 50' >/dev/null \
  || fail "mimose did not run every iteration: $(echo "$m" | jq -c '{status, planner}')"
# warm-up (10 iterations): every layer checkpointed, no prediction; then a prediction each
echo "$m" | jq -e '[.iterations[:10][] | .predicted_peak == null and .checkpointed == .layers]
                   | all' >/dev/null || fail "warm-up is not checkpoint-all without prediction"
echo "$m" | jq -e '[.iterations[10:][] | .predicted_peak != null] | all' >/dev/null \
  || fail "no prediction after warm-up"
# the goal, checked per iteration, not only on the summary
worst=$(echo "$m" | jq '[.iterations[10:][] | ((.predicted_peak - .peak_memory) / .peak_memory
                         | fabs)] | max')
awk -v w="$worst" 'BEGIN { exit !(w < 0.05) }' || fail "prediction error $worst >= 5%"
echo "$m" | jq -e --argjson w "$worst" '(.planner.pred_err_max - $w | fabs) < 1e-9' >/dev/null \
  || fail "summary max error differs from the iterations' ($worst)"
# every cache hit reuses a plan made for the same bucket: hits + misses = predicted iterations
echo "$m" | jq -e '.planner.cache_hits + .planner.cache_misses == 40' >/dev/null \
  || fail "cache counts: $(echo "$m" | jq -c .planner)"
# lower overhead than both baselines
mo=$(echo "$m" | jq .overhead); so=$(echo "$s" | jq .overhead); ao=$(echo "$a" | jq .overhead)
awk -v m="$mo" -v s="$so" -v a="$ao" 'BEGIN { exit !(m < s && m < a) }' \
  || fail "mimose overhead $mo not below mimose-static $so and ckpt-all $ao"
# mimose-static: one plan, made once
echo "$s" | jq -e '.status == "ok" and .planner.cache_misses == 1 and .planner.cache_hits == 39
                   and ([.iterations[11:][] | .plan] | unique | length) == 1' >/dev/null \
  || fail "mimose-static is not one plan: $(echo "$s" | jq -c .planner)"

# parameters: canonical in the report, and they act
p=$(run mimose --policy-args 'warmup=4, bucket = 8') || fail "sim with parameters"
echo "$p" | jq -e '.policy_args == "bucket=8,warmup=4" and .planner.predicted == 46' >/dev/null \
  || fail "parameters: $(echo "$p" | jq -c '{policy_args, planner}')"
# predict=authors changes the report, never the plan
q=$(run mimose --policy-args predict=authors) || fail "sim predict=authors"
[ "$(echo "$q" | jq -c '[.iterations[].plan]')" = "$(echo "$m" | jq -c '[.iterations[].plan]')" ] \
  || fail "predict=authors changed a plan"
echo "$q" | jq -e --argjson w "$worst" '.planner.pred_err_max > $w' >/dev/null \
  || fail "the authors' estimate is not the coarser one here"

# refusals
for bad in "bucket=0:bucket='0'" "foo=1:unknown parameter 'foo'" "warmup=1:warmup='1'" \
           "max_input=9:unknown parameter 'max_input'" "predict=x:predict='x'"; do
  args=${bad%%:*} want=${bad#*:}
  out=$(run mimose --policy-args "$args" 2>&1); rc=$?
  [ $rc -ne 0 ] && echo "$out" | grep -qF "$want" || fail "--policy-args $args: rc $rc: $out"
done
"$GMS_BIN" sim t.gmt --budget 0.6 --policy mimose-static --policy-args max_input=1024 \
  >/dev/null || fail "mimose-static max_input"
echo "ok"
