#!/usr/bin/env bash
# End-to-end (issue 32 item 5): 'sim --db FILE' stores its run under the key a sweep gives it,
# so 'db gaps' shows the run beside Checkmate's optimum (not "0 rows"), 'db runs' lists it, a
# second sim keeps the one row, and a sweep over the same run skips it. Options a run key
# cannot carry (--kineto) are refused before anything is written.
. "$(dirname "$0")/lib.sh"
MLP="$SAMPLES/mlp-small.gmt"

"$GMS_BIN" sim "$MLP" --policy checkmate --budget 0.7 --db gaps.db >/dev/null || fail "checkmate"
"$GMS_BIN" sim "$MLP" --policy dtr --budget 0.7 --db gaps.db --json >dtr.json 2>err ||
  fail "sim --db: $(cat err)"
grep -q "run stored in gaps.db" err || fail "sim does not say it stored the run: $(cat err)"
"$GMS_BIN" db gaps gaps.db --json >gaps.json || fail "db gaps"
jq -e 'length == 1 and .[0].policy == "dtr"' gaps.json >/dev/null || fail "db gaps: $(cat gaps.json)"
[ "$(jq .[0].overhead gaps.json)" = "$(jq .overhead dtr.json)" ] || fail "stored overhead differs"
"$GMS_BIN" db gaps gaps.db | grep -q "^1 rows, 1 beside a stored answer" ||
  fail "db gaps table: $("$GMS_BIN" db gaps gaps.db)"

# random with a seed and a swapping policy with its link: the sweep's keys, so a sweep skips
"$GMS_BIN" sim "$UNET" --policy random --seed 2 --budget 0.6 --db s.db >/dev/null 2>&1 || fail "random"
"$GMS_BIN" sim "$UNET" --policy swap-lru --budget 0.6 --link pcie3 --db s.db >/dev/null 2>&1 ||
  fail "swap-lru"
"$GMS_BIN" sim "$UNET" --policy random --seed 2 --budget 0.6 --db s.db 2>&1 >/dev/null |
  grep -q "run already in s.db" || fail "a second sim stored the run again"
"$GMS_BIN" db runs s.db | grep -q "^2 runs: " || fail "db runs: $("$GMS_BIN" db runs s.db)"
"$GMS_BIN" db runs s.db | grep -Eq '^unet-small +random +seed=2 ' || fail "random's key"
"$GMS_BIN" sweep "$UNET" --policies random --seeds 3 --budgets 0.6 --db s.db 2>&1 |
  grep -q "1 already in s.db were skipped" || fail "the sweep did not skip sim's run"
"$GMS_BIN" sweep "$UNET" --policies swap-lru --link pcie3 --budgets 0.6 --db s.db 2>&1 |
  grep -q "1 already in s.db were skipped" || fail "the sweep did not skip swap-lru's run"

expect_fail "--db cannot store this run: --kineto" \
  "$GMS_BIN" sim "$UNET" --policy dtr --budget 0.6 --kineto x.json --db k.db
[ ! -e k.db ] || fail "a refused sim wrote a store"
help=$("$GMS_BIN" sim --help)
grep -q "store the run in the result store FILE" <<<"$help" || fail "--help"
echo ok
