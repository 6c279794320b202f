#!/usr/bin/env bash
# Helpers of the fit CLI tests (sourced after lib.sh).

# check_fit TRACE JSON [SIM OPTIONS...]: every answer of a 'fit --json' report holds when
# simulated on its own: the budget runs ok within the overhead limit with the overhead fit
# reported, the failing budget it names fails (or goes over the limit) and lies at most the
# tolerance below, budgets stay between the floor and the top of the search, and (for
# policies that showed no non-monotone pass) the budget one tolerance below fails too.
check_fit() {
  local trace=$1 rep=$2; shift 2
  local max tol floor base n i pol b below at_floor nonmono out ok ov got
  max=$(echo "$rep" | jq .max_overhead); tol=$(echo "$rep" | jq .tolerance_bytes)
  floor=$(echo "$rep" | jq .floor_bytes); base=$(echo "$rep" | jq ".baseline_memory * .up_to | floor")
  n=$(echo "$rep" | jq '.results | length')
  [ "$n" -gt 0 ] || fail "no results: $rep"
  for ((i = 0; i < n; i++)); do
    local r
    r=$(echo "$rep" | jq -c ".results[$i]")
    pol=$(echo "$r" | jq -r .policy)
    for k in policy budget_bytes budget_ratio overhead runs non_monotone found at_floor \
             failed_below_bytes lowest_passing_bytes; do
      echo "$r" | jq -e "has(\"$k\")" >/dev/null || fail "$pol: no key $k: $r"
    done
    echo "$r" | jq -e '.found' >/dev/null || continue
    b=$(echo "$r" | jq .budget_bytes)
    [ "$b" -ge "$floor" ] && [ "$b" -le "$base" ] || fail "$pol: budget $b outside [$floor, $base]"
    out=$("$GMS_BIN" sim "$trace" --policy "$pol" --budget "${b}B" --json "$@") || fail "sim $pol"
    echo "$out" | jq -e --argjson m "$max" '.status == "ok" and .overhead <= $m' >/dev/null \
      || fail "$pol: the answer $b does not pass: $out"
    ov=$(echo "$r" | jq .overhead)
    echo "$out" | jq -e --argjson o "$ov" '(.overhead - $o) | fabs < 1e-8' >/dev/null \
      || fail "$pol: fit says overhead $ov at $b, sim says $(echo "$out" | jq .overhead)"
    at_floor=$(echo "$r" | jq .at_floor)
    if [ "$at_floor" = true ]; then
      [ "$b" -eq "$floor" ] || fail "$pol: at_floor but $b != floor $floor"
      continue
    fi
    below=$(echo "$r" | jq .failed_below_bytes)
    [ "$below" -lt "$b" ] && [ $((b - below)) -le "$tol" ] \
      || fail "$pol: failing budget $below is not within $tol below $b"
    for probe in "$below" $((b - tol)); do
      nonmono=$(echo "$r" | jq .non_monotone)
      [ "$probe" = "$below" ] || [ "$nonmono" = false ] || continue
      [ "$probe" -ge "$floor" ] || continue
      out=$("$GMS_BIN" sim "$trace" --policy "$pol" --budget "${probe}B" --json "$@") \
        || fail "sim $pol at $probe"
      echo "$out" | jq -e --argjson m "$max" '.status != "ok" or .overhead > $m' >/dev/null \
        || fail "$pol: $probe B (below the answer $b) passes: $out"
    done
    got=$(echo "$r" | jq .lowest_passing_bytes)
    if [ "$(echo "$r" | jq .non_monotone)" = true ]; then
      [ "$got" -lt "$b" ] || fail "$pol: non-monotone but lowest pass $got >= $b"
      out=$("$GMS_BIN" sim "$trace" --policy "$pol" --budget "${got}B" --json "$@")
      echo "$out" | jq -e --argjson m "$max" '.status == "ok" and .overhead <= $m' >/dev/null \
        || fail "$pol: the lowest pass $got does not pass: $out"
    else
      [ "$got" -eq "$b" ] || fail "$pol: lowest pass $got differs from the answer $b"
    fi
  done
}
