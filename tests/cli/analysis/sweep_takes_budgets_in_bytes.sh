#!/usr/bin/env bash
# End-to-end (issue 32 item 10): sweep --budgets takes byte sizes as sim's --budget does, alone
# or mixed with ratios; a byte budget runs exactly as 'sim --budget BYTES' and is stored with
# its bytes and the ratio bytes / baseline memory. Bad items are refused with what to write.
. "$(dirname "$0")/lib.sh"

"$GMS_BIN" sweep "$UNET" --policies dtr,lru --budgets 0.5GiB --db one.db --quiet ||
  fail "sweep --budgets 0.5GiB"
[ "$("$GMS_BIN" db export one.db --json | jq '[.[] | select(.budget == 536870912)] | length')" = 2 ] ||
  fail "0.5GiB not stored as 536870912 bytes: $("$GMS_BIN" db export one.db --json)"

base=$("$GMS_BIN" sim "$UNET" --json | jq .baseline_memory)
bytes=$((base * 6 / 10))
"$GMS_BIN" sweep "$UNET" --policies dtr --budgets "0.5,${bytes}B,0.7" --db mixed.db --quiet ||
  fail "sweep with a mixed list"
"$GMS_BIN" db export mixed.db --json >mixed.json
[ "$(jq length mixed.json)" = 3 ] || fail "mixed list: $(cat mixed.json)"
want=$("$GMS_BIN" sim "$UNET" --policy dtr --budget "${bytes}B" --json)
got=$(jq --argjson b "$bytes" '.[] | select(.budget == $b)' mixed.json)
[ "$(echo "$got" | jq .overhead)" = "$(echo "$want" | jq .overhead)" ] &&
  [ "$(echo "$got" | jq .evictions)" = "$(echo "$want" | jq .evictions)" ] ||
  fail "the byte budget's run differs from sim's: $got vs $want"
echo "$got" | jq -e --argjson b "$bytes" --argjson m "$base" \
  '(.ratio - $b / $m) | fabs < 1e-9' >/dev/null || fail "stored ratio: $got"
[ "$(jq '[.[] | select(.ratio == 0.5 or .ratio == 0.7)] | length' mixed.json)" = 2 ] ||
  fail "the ratios of a mixed list: $(cat mixed.json)"

expect_fail "budget '3XB' in .*expected a ratio .* or bytes with a unit" \
  "$GMS_BIN" sweep "$UNET" --budgets 0.5,3XB --db bad.db --quiet
expect_fail "out of range" "$GMS_BIN" sweep "$UNET" --budgets 0.5,11 --db bad.db --quiet
[ ! -e bad.db ] || fail "a refused sweep wrote a store"
help=$("$GMS_BIN" sweep --help)
grep -q "0.5GiB" <<<"$help" || fail "--help does not say bytes are taken"
echo ok
