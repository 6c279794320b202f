#!/usr/bin/env bash
# End-to-end: every kind of run sim makes says where it peaked (docs/memory.md, "Where the peak
# is"): a policy plugin's run (followed in its child process) exactly as the built-in it
# computes; --seeds the median seed's run, said so, equal to that seed run alone; each edge of
# --budget-band its own, equal to a run at that budget; and --policy checkmate its replayed
# schedule's, its graph nodes mapped onto the trace's storages (plot timeline --by-category too).
set -euo pipefail
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}" "${GMS_PLUGIN_DTR_LOCAL:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP"
G=$GMS_BIN
S=$GMS_SOURCE_DIR/traces/samples
P=$GMS_PLUGIN_DTR_LOCAL

# a plugin's run: the same peak as the built-in dtr-local, in JSON and text, with --seeds too
for t in unet-small transformer-small; do
  for b in 0.4 0.7; do
    want=$("$G" sim "$S/$t.gmt" --policy dtr-local --budget $b --json | jq -c .peak_at)
    got=$("$G" sim "$S/$t.gmt" --policy "$P" --budget $b --json | jq -c .peak_at)
    [ "$got" != null ] || fail "$t $b: a plugin's run has no peak_at"
    jq -e '.by_category.saved_activations > 0 and .op != ""' <<<"$got" >/dev/null ||
      fail "$t $b: a plugin's peak_at is empty: $got"
    [ "$got" = "$want" ] || fail "$t $b: plugin peak_at $got, dtr-local's $want"
    want=$("$G" sim "$S/$t.gmt" --policy dtr-local --budget $b | grep -A7 '^peak at:')
    got=$("$G" sim "$S/$t.gmt" --policy "$P" --budget $b | grep -A7 '^peak at:')
    [ "$got" = "$want" ] || fail "$t $b: plugin text peak '$got' vs '$want'"
  done
done
got=$("$G" sim "$S/unet-small.gmt" --policy "$P" --budget 0.5 --seeds 3 --json)
want=$("$G" sim "$S/unet-small.gmt" --policy dtr-local --budget 0.5 --seeds 3 --json)
[ "$(jq -c .peak_at <<<"$got")" = "$(jq -c .peak_at <<<"$want")" ] ||
  fail "plugin --seeds: $(jq -c .peak_at <<<"$got") vs $(jq -c .peak_at <<<"$want")"

# --seeds: the median seed's run (said so), the same as that seed's run alone
all=$("$G" sim "$S/unet-small.gmt" --policy random --budget 0.6 --seeds 5 --json)
med=$(jq .seeds.median_seed <<<"$all")
jq -e '.peak_at.seed == .seeds.median_seed and .peak_at.median_of_seeds == 5
  and .peak_at.memory > 0 and .peak_at.memory <= .budget' <<<"$all" >/dev/null ||
  fail "--seeds peak_at does not name the median run: $(jq -c .peak_at <<<"$all")"
one=$("$G" sim "$S/unet-small.gmt" --policy random --budget 0.6 --seed "$med" --json)
[ "$(jq -c '.peak_at | del(.median_of_seeds)' <<<"$all")" = "$(jq -c .peak_at <<<"$one")" ] ||
  fail "--seeds peak_at is not seed $med's: $(jq -c .peak_at <<<"$all") vs $(jq -c .peak_at <<<"$one")"
# ... and the seeds differ where they peak, so picking the median matters
n=$(for s in 0 1 2 3 4; do
      "$G" sim "$S/unet-small.gmt" --policy random --budget 0.6 --seed $s --json | jq -c .peak_at.memory
    done | sort -u | wc -l)
[ "$n" -gt 1 ] || fail "every seed peaks alike: the median test proves nothing"
text=$("$G" sim "$S/unet-small.gmt" --policy random --budget 0.6 --seeds 5)
grep -q "^peak at: .*\[the median run: seed $med of 5\]$" <<<"$text" ||
  fail "--seeds text does not say whose peak: $text"

# --budget-band: the run at the budget, and each edge its own, as a run at that budget
band=$("$G" sim "$S/unet-small.gmt" --policy dtr --budget 0.5 --budget-band 0.1 --json)
at=$("$G" sim "$S/unet-small.gmt" --policy dtr --budget 0.5 --json)
[ "$(jq -c .peak_at <<<"$band")" = "$(jq -c .peak_at <<<"$at")" ] ||
  fail "--budget-band: the center's peak_at $(jq -c .peak_at <<<"$band")"
for e in low high; do
  b=$(jq ".budget_band.$e.budget" <<<"$band")
  got=$(jq -c ".budget_band.$e.peak_at" <<<"$band")
  want=$("$G" sim "$S/unet-small.gmt" --policy dtr --budget "${b}B" --json | jq -c .peak_at)
  [ "$got" != null ] && [ "$got" = "$want" ] || fail "--budget-band $e: $got vs $want"
done
[ "$(jq -c .budget_band.low.peak_at <<<"$band")" != "$(jq -c .budget_band.high.peak_at <<<"$band")" ] ||
  fail "--budget-band: both edges peak alike: the test proves nothing"
text=$("$G" sim "$S/unet-small.gmt" --policy dtr --budget 0.5 --budget-band 0.1)
[ "$(grep -Ec '^budget [-+]10%.*; peak [0-9]+ B at op [0-9]+ .* \((forward|backward)\)$' <<<"$text")" = 2 ] ||
  fail "--budget-band text lacks the edges' peaks: $text"

# checkmate (issue 26): the replayed schedule's peak, its nodes mapped onto the trace's
# storages. At 1.0 the outputs graph needs no recomputation and its replay is the baseline's:
# the same peak, op, phase and categories as any run's (dtr at 1.0), byte for byte (the
# iteration that peaks: transformer-small's second of three)
for ti in unet-small:0 mlp-small:0 transformer-small:1; do
  t=${ti%:*}
  ck=$("$G" sim "$S/$t.gmt" --policy checkmate --coarsen outputs --budget 1.0 --iteration ${ti#*:} --json)
  want=$("$G" sim "$S/$t.gmt" --policy dtr --budget 1.0 --json | jq -c '.peak_at | del(.seed)')
  [ "$(jq -c '.peak_at | del(.node)' <<<"$ck")" = "$want" ] ||
    fail "$t checkmate at 1.0: $(jq -c .peak_at <<<"$ck") vs dtr's $want"
  jq -e '.peak_at_unavailable == null and (.peak_at.node | length > 0)' <<<"$ck" >/dev/null ||
    fail "$t checkmate at 1.0: $(jq -c '[.peak_at_unavailable, .peak_at.node]' <<<"$ck")"
done
# under a budget (recomputation at op level and by layers): the categories sum to the replay's
# peak with nothing unknown, at an op of the trace where a graph node completes. The op-level
# search runs to its limit whatever it is (nothing proves its optimum), and any schedule it
# keeps (the seeds' at worst) answers these checks: 5 s, not the 30 s the layer program is
# solved well within.
for cl in outputs:5 layers:30; do
  c=${cl%:*}
  ck=$("$G" sim "$S/mlp-small.gmt" --policy checkmate --coarsen $c --budget 0.8 --time-limit ${cl#*:} --json)
  jq -e '.status == "ok" and .remats > 0 and .peak_at.memory == .peak_memory
    and ([.peak_at.by_category[]] | add) == .peak_at.memory and .peak_at.by_category.unknown == 0
    and .peak_at.by_category.saved_activations > 0 and .peak_at.by_category.preexisting > 0
    and (.peak_at.phase == "forward" or .peak_at.phase == "backward") and .peak_at.op != ""
    and .peak_at_unavailable == null' <<<"$ck" >/dev/null ||
    fail "checkmate $c at 0.8: $(jq -c '[.status, .remats, .peak_memory, .peak_at]' <<<"$ck")"
done
text=$("$G" sim "$S/mlp-small.gmt" --policy checkmate --coarsen layers --budget 0.8 --time-limit 30)
grep -q '^peak at: *[0-9]* B (.*) at op [0-9]* .* (\(forward\|backward\)), graph node .' <<<"$text" &&
  grep -q '^  saved activations *[1-9][0-9]* B' <<<"$text" ||
  fail "checkmate text has no peak by category: $text"
# nothing replayed (the layer program is infeasible): no peak_at, and it says why
ck=$("$G" sim "$S/unet-small.gmt" --policy checkmate --coarsen layers --budget 0.5 --json)
jq -e '.status == "oom" and .peak_at == null and (.peak_at_unavailable | test("no schedule was replayed"))' \
  <<<"$ck" >/dev/null || fail "infeasible checkmate: $(jq -c '[.status, .peak_at, .peak_at_unavailable]' <<<"$ck")"
# plot timeline --by-category stacks a checkmate run's categories as any run's
"$G" plot timeline "$S/mlp-small.gmt" --policy checkmate --budget 0.8 --coarsen outputs \
  --time-limit 5 --by-category -o "$GMS_TMP/t.svg" 2>err.txt ||
  fail "plot timeline --by-category checkmate: $(cat err.txt)"
[ -s "$GMS_TMP/t.svg" ] && grep -q 'saved activations' "$GMS_TMP/t.svg" ||
  fail "plot timeline --by-category checkmate drew no categories"
echo ok
