#!/usr/bin/env bash
# End-to-end: capuchin runs wherever swapping alone (swap-lru) runs on the demo's MLP sample
# (issue 30: it stopped at the remat limit at every budget from 0.2 to 0.9, its MSPS drops
# recomputed the same activations over and over), keeps its recomputation within one
# iteration's compute, and still both swaps (prefetching) and recomputes.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
M="$GMS_SOURCE_DIR/traces/samples/mlp-small.gmt"

half=$("$GMS_BIN" sim "$M" --policy capuchin --budget 0.5 --json) || fail "sim capuchin 0.5"
echo "$half" | jq -e '.status == "ok" and .remat_compute <= .baseline_compute
  and .remats > 0 and .swap.swaps_out > 0 and .swap.prefetches > 0
  and .peak_memory <= .budget' >/dev/null || fail "capuchin at 0.5: $half"
for b in 0.2 0.3 0.4 0.6 0.7 0.8 0.9; do
  for link in pcie3 pcie5; do
    s=$("$GMS_BIN" sim "$M" --policy swap-lru --budget $b --link $link --json | jq -r .status)
    c=$("$GMS_BIN" sim "$M" --policy capuchin --budget $b --link $link --json) \
      || fail "sim capuchin $b $link"
    [ "$s" != ok ] || echo "$c" | jq -e '.status == "ok" and .remat_compute <= .baseline_compute' \
      >/dev/null || fail "capuchin at $b on $link where swap-lru runs: $c"
  done
done
# with no remat limit at all it still keeps to its own budget
nl=$("$GMS_BIN" sim "$M" --policy capuchin --budget 0.3 --remat-limit 0 --json) || fail "no limit"
echo "$nl" | jq -e '.status == "ok" and .remat_compute <= .baseline_compute' >/dev/null \
  || fail "capuchin without a limit: $nl"
exit 0
