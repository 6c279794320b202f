#!/usr/bin/env bash
# Bad input gives a clear error and a non-zero exit, and writes nothing.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
expect_fail 'missing\.gmt: cannot read' "$GMS_BIN" sweep "$UNET" missing.gmt --db r.db
expect_fail "unknown policy 'nope'" "$GMS_BIN" sweep "$UNET" --policies dtr,nope --db r.db
expect_fail 'out of range' "$GMS_BIN" sweep "$UNET" --budgets 0:1:0.1 --db r.db
expect_fail 'out of range' "$GMS_BIN" sweep "$UNET" --budgets 0.5,11 --db r.db
expect_fail 'expected' "$GMS_BIN" sweep "$UNET" --budgets half --db r.db
expect_fail 'shard' "$GMS_BIN" sweep "$UNET" --shard 4/3 --db r.db
expect_fail 'no traces' "$GMS_BIN" sweep --db r.db
expect_fail "--remat-limit '0.5': expected a number >= 1" "$GMS_BIN" sweep "$UNET" --remat-limit 0.5 --db r.db
expect_fail "--remat-limit '2x': expected a number >= 1" "$GMS_BIN" sweep "$UNET" --remat-limit 2x --db r.db
expect_fail "--seeds '0': expected a whole number >= 1" "$GMS_BIN" sweep "$UNET" --seeds 0 --db r.db
expect_fail "-j '-2': expected a number of threads" "$GMS_BIN" sweep "$UNET" -j -2 --db r.db
expect_fail "'-j0': expected a number of threads" "$GMS_BIN" sweep "$UNET" -j0 --db r.db
expect_fail "plot timeline: --remat-limit '0.5': expected a number >= 1, or 0" "$GMS_BIN" plot \
  timeline "$UNET" --policy dtr --budget 0.5 --remat-limit 0.5 -o tl.png
[ ! -e tl.png ] || fail "a rejected plot wrote its chart"
[ ! -e r.db ] || fail "a failed sweep created its store"

echo "name,value" > corrupt.db
before=$(md5sum corrupt.db)
expect_fail 'not a SQLite database' "$GMS_BIN" sweep "$UNET" --db corrupt.db
[ "$(md5sum corrupt.db)" = "$before" ] || fail "the sweep modified a non-database file"
[ ! -e corrupt.db-wal ] || fail "the sweep left a WAL beside a non-database file"

# a store with a damaged page: the header is fine, the rest is not
"$GMS_BIN" sweep "$UNET" --policies lru --budgets 0.5 --db good.db --quiet
cp good.db damaged.db
printf 'garbage garbage garbage garbage garbage' |
  dd of=damaged.db bs=1 seek=4200 conv=notrunc status=none
printf 'garbage garbage garbage garbage garbage' |
  dd of=damaged.db bs=1 seek=100 conv=notrunc status=none
before=$(md5sum damaged.db)
expect_fail 'corrupt' "$GMS_BIN" sweep "$UNET" --db damaged.db
[ "$(md5sum damaged.db)" = "$before" ] || fail "the sweep modified a corrupt store"
echo PASS
