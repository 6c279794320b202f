#!/usr/bin/env bash
# End-to-end: 'gpumemsim fit' on the bundled samples. Each answer passes when simulated on its
# own and the budget just below it fails (check_fit); the default policy list is what the
# memory model can run; -j does not change answers; the table has a row per policy; bad input
# is refused with a clear message.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fit_lib.sh"

rep=$("$GMS_BIN" fit "$UNET" --max-overhead 1.2 --json --quiet) || fail "fit"
check_fit "$UNET" "$rep"
# the default list: every built-in eviction policy (checkpoint planners, listed with
# "planner:", and solved schedules, "solved:", are no eviction policies) that sim runs on the
# ideal model, in registry order
want=$("$GMS_BIN" sim --list-policies | awk '$2 != "planner:" && $2 != "solved:" {print $1}' | while read -r p; do
  if "$GMS_BIN" sim "$UNET" --policy "$p" --budget 1.0 >/dev/null 2>&1; then printf '%s,' "$p"; fi
done)
got=$(echo "$rep" | jq -r '[.results[].policy] | join(",")')
[ "$got," = "$want" ] || fail "default policies on the ideal model: $got, expected $want"
case ",$got," in *,dtr,*lru,*msps,*) ;; *) fail "dtr, lru or msps missing: $got" ;; esac
case ",$got," in *,coop,*|*,dtr-frag,*) fail "address-aware policies on ideal: $got" ;; esac
echo "$rep" | jq -e '[.results[] | select(.found and (.at_floor | not))] | length >= 5' \
  >/dev/null || fail "few answers above the floor to check: $rep"
echo "$rep" | jq -e '.floor_bytes > 0 and .floor_ratio < 1 and .tolerance_bytes ==
                     (.baseline_memory * 5 / 1000 | floor)' >/dev/null || fail "figures: $rep"

# another trace, a looser limit, two threads (same answers as one)
rep=$("$GMS_BIN" fit "$TRANSFORMER" --max-overhead 1.5 --policies dtr,lru,msps --json -j 2) \
  || fail "fit -j 2"
check_fit "$TRANSFORMER" "$rep"
one=$("$GMS_BIN" fit "$TRANSFORMER" --max-overhead 1.5 --policies dtr,lru,msps --json -j 1)
[ "$rep" = "$one" ] || fail "-j 2 and -j 1 differ"

# a memory model: address-aware policies join the default list; answers hold with it
rep=$("$GMS_BIN" fit "$RESNET" --allocator caching --max-overhead 1.5 --up-to 1.5 --json --quiet) \
  || fail "fit --allocator caching"
echo "$rep" | jq -e '[.results[].policy] | index("coop") != null and index("dtr-frag") != null' \
  >/dev/null || fail "coop/dtr-frag missing with caching: $rep"
check_fit "$RESNET" "$rep" --allocator caching

# the table: a header and one row per policy
out=$("$GMS_BIN" fit "$UNET" --policies dtr,lru) || fail "fit table"
grep -q "^floor .*no budget below it can run" <<<"$out" || fail "no floor line: $out"
grep -Eq "^dtr +[0-9]+ +0\.[0-9]{3} +1\.[0-9]{4} +[0-9]+" <<<"$out" || fail "no dtr row: $out"
grep -Eq "^lru +[0-9]+ " <<<"$out" || fail "no lru row: $out"

# a limit no budget can meet under the remat limit: reported, not an error
out=$("$GMS_BIN" fit "$UNET" --policies lru --max-overhead 1.000001 --json) || fail "tight limit"
echo "$out" | jq -e '.results[0].found == false and .results[0].budget_bytes == null' >/dev/null \
  || fail "an unmeetable limit: $out"

# refusals
expect_fail "expected a TRACE" "$GMS_BIN" fit
expect_fail "number > 1" "$GMS_BIN" fit "$UNET" --max-overhead 1
expect_fail "number > 1" "$GMS_BIN" fit "$UNET" --max-overhead abc
expect_fail "unknown policy 'nope'; valid policies: dtr" "$GMS_BIN" fit "$UNET" --policies dtr,nope
expect_fail "add --allocator caching" "$GMS_BIN" fit "$UNET" --policies coop
expect_fail "drop --allocator" "$GMS_BIN" fit "$UNET" --policies dtr-proto --allocator caching
expect_fail "2 to 1000" "$GMS_BIN" fit "$UNET" --grid 1
expect_fail "unknown option '--budget'" "$GMS_BIN" fit "$UNET" --budget 0.5 --json
expect_fail "needs a value" "$GMS_BIN" fit "$UNET" --policies
expect_fail "no-such.gmt" "$GMS_BIN" fit no-such.gmt
rc=0; "$GMS_BIN" fit "$UNET" --max-overhead 0.9 >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "a bad option should exit 2, got $rc"
echo ok
