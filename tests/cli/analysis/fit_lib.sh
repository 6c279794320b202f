#!/usr/bin/env bash
# Helpers of the fit CLI tests (sourced after lib.sh).

# check_fit TRACE JSON [SIM OPTIONS...]: every answer of a 'fit --json' report holds when
# simulated on its own: the budget runs ok within the overhead limit with the overhead fit
# reported, the failing budget it names fails (or goes over the limit) and lies at most the
# tolerance below, budgets stay between the floor and the top of the search, and (for
# policies that showed no non-monotone pass) the budget one tolerance below fails too.
check_fit() {
  local trace=$1 rep=$2; shift 2
  local max tol floor base n i pol missing found b ov at_floor below nonmono got r out fields
  # one jq per report, per result and per run: a jq start costs more than these checks
  read -r max tol floor base n <<<"$(echo "$rep" | jq -r \
    '[.max_overhead, .tolerance_bytes, .floor_bytes, (.baseline_memory * .up_to | floor),
      (.results | length)] | map(tojson) | @tsv')"
  [ "$n" -gt 0 ] || fail "no results: $rep"
  for ((i = 0; i < n; i++)); do
    r=$(echo "$rep" | jq -c ".results[$i]")
    # the fields as 'jq .KEY' prints them (the policy as 'jq -r'), and the first key missing
    read -r pol missing found b ov at_floor below nonmono got <<<"$(echo "$r" | jq -r '
      . as $r
      | [(.policy | if type == "string" then . else tojson end),
         ([("policy budget_bytes budget_ratio overhead runs non_monotone found at_floor " +
            "failed_below_bytes lowest_passing_bytes") | splits(" ")
           | select(. as $k | $r | has($k) | not)] | first // "-"),
         (.found | if . == null or . == false then "no" else "yes" end),
         (.budget_bytes, .overhead, .at_floor, .failed_below_bytes, .non_monotone,
          .lowest_passing_bytes | tojson)] | @tsv')"
    [ "$missing" = - ] || fail "$pol: no key $missing: $r"
    [ "$found" = yes ] || continue
    [ "$b" -ge "$floor" ] && [ "$b" -le "$base" ] || fail "$pol: budget $b outside [$floor, $base]"
    out=$("$GMS_BIN" sim "$trace" --policy "$pol" --budget "${b}B" --json "$@") || fail "sim $pol"
    fields=$(echo "$out" | jq -r --argjson m "$max" --argjson o "$ov" \
      '[.status == "ok" and .overhead <= $m, ((.overhead - $o) | fabs < 1e-8)] | @tsv') || true
    [ "${fields%%$'\t'*}" = true ] || fail "$pol: the answer $b does not pass: $out"
    [ "${fields#*$'\t'}" = true ] \
      || fail "$pol: fit says overhead $ov at $b, sim says $(echo "$out" | jq .overhead)"
    if [ "$at_floor" = true ]; then
      [ "$b" -eq "$floor" ] || fail "$pol: at_floor but $b != floor $floor"
      continue
    fi
    [ "$below" -lt "$b" ] && [ $((b - below)) -le "$tol" ] \
      || fail "$pol: failing budget $below is not within $tol below $b"
    for probe in "$below" $((b - tol)); do
      [ "$probe" = "$below" ] || [ "$nonmono" = false ] || continue
      [ "$probe" -ge "$floor" ] || continue
      out=$("$GMS_BIN" sim "$trace" --policy "$pol" --budget "${probe}B" --json "$@") \
        || fail "sim $pol at $probe"
      echo "$out" | jq -e --argjson m "$max" '.status != "ok" or .overhead > $m' >/dev/null \
        || fail "$pol: $probe B (below the answer $b) passes: $out"
    done
    if [ "$nonmono" = true ]; then
      [ "$got" -lt "$b" ] || fail "$pol: non-monotone but lowest pass $got >= $b"
      out=$("$GMS_BIN" sim "$trace" --policy "$pol" --budget "${got}B" --json "$@")
      echo "$out" | jq -e --argjson m "$max" '.status == "ok" and .overhead <= $m' >/dev/null \
        || fail "$pol: the lowest pass $got does not pass: $out"
    else
      [ "$got" -eq "$b" ] || fail "$pol: lowest pass $got differs from the answer $b"
    fi
  done
}
