#!/usr/bin/env bash
# End-to-end (issue 32 item 8): a value option given twice is refused in sim and sweep (never
# "the last one wins" silently), and sweep refuses --link / --host-memory when no swept policy
# swaps, as sim does. Nothing is written by a refused sweep.
. "$(dirname "$0")/lib.sh"

expect_fail "policy dtr never swaps" "$GMS_BIN" sim "$UNET" --policy dtr --budget 0.5 --link pcie4
expect_fail "--link sets .*swapping policies .*swap-lru.*drop --link" \
  "$GMS_BIN" sweep "$UNET" --policies dtr --budgets 0.5 --link pcie4 --db a.db --quiet
expect_fail "--host-memory sets .*swapping policies" \
  "$GMS_BIN" sweep "$UNET" --policies dtr,lru --budgets 0.5 --host-memory 1GiB --db a.db --quiet
[ ! -e a.db ] || fail "a refused sweep wrote a store"
"$GMS_BIN" sweep "$UNET" --policies dtr,swap-lru --budgets 0.5 --link pcie4 --db ok.db --quiet ||
  fail "sweep with a swapping policy and --link"

expect_fail "--budget given twice" "$GMS_BIN" sim "$UNET" --budget 0.5 --budget 0.6
expect_fail "--policy given twice" "$GMS_BIN" sim "$UNET" --policy lru --policy=dtr --budget 0.5
expect_fail "--seed given twice" "$GMS_BIN" sim "$UNET" --seed 1 --seed 2 --budget 0.5
expect_fail "--budgets given twice.*one comma-separated list" \
  "$GMS_BIN" sweep "$UNET" --budgets 0.5 --budgets 0.6 --db b.db --quiet
expect_fail "--policies given twice" \
  "$GMS_BIN" sweep "$UNET" --policies dtr --policy lru --budgets 0.5 --db b.db --quiet
expect_fail "--db given twice" \
  "$GMS_BIN" sweep "$UNET" --budgets 0.5 --db b.db --db c.db --quiet
[ ! -e b.db ] && [ ! -e c.db ] || fail "a refused sweep wrote a store"
echo ok
