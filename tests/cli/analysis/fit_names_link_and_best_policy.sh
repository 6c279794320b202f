#!/usr/bin/env bash
# End-to-end (issue 32 item 11): fit takes --link and --host-memory as sim does, says which link
# and host memory the swapping policies used (text and JSON), refuses them without a swapping
# policy, and ends its table with one line naming the best policy at the limit.
. "$(dirname "$0")/lib.sh"

out=$("$GMS_BIN" fit "$UNET" --policies dtr,swap-lru,lru --link pcie3 --host-memory 1GiB --quiet) ||
  fail "fit --link"
echo "$out" | grep -Eq '^link +15\.75 GB/s per direction, 10 us per copy .*host memory 1\.00 GiB' ||
  fail "no link line: $out"
js=$("$GMS_BIN" fit "$UNET" --policies dtr,swap-lru,lru --link pcie3 --host-memory 1GiB --json --quiet)
echo "$js" | jq -e '.link == "15.75GBps/10000ns" and .host_memory == 1073741824' >/dev/null ||
  fail "JSON link: $js"
# the best: the smallest passing budget of the table's rows, named on the last line
best=$(echo "$js" | jq -r '[.results[] | select(.found)] | min_by(.budget_bytes) | .policy')
[ "$(echo "$js" | jq -r .best)" = "$best" ] || fail "JSON best is not $best: $js"
echo "$out" | tail -1 | grep -Eq "^best +$best: 0\.[0-9]{3} x baseline \(.*\) within overhead 1\.2$" ||
  fail "last line does not name $best: $(echo "$out" | tail -1)"
# the link reaches the runs: swap-lru's overhead at the answer's budget matches sim's there
b=$(echo "$js" | jq '.results[] | select(.policy == "swap-lru") | .budget_bytes')
if [ "$b" != null ]; then
  want=$("$GMS_BIN" sim "$UNET" --policy swap-lru --budget "${b}B" --link pcie3 --host-memory 1GiB --json | jq .overhead)
  echo "$js" | jq -e --argjson w "$want" \
    '.results[] | select(.policy == "swap-lru") | (.overhead - $w) | fabs < 1e-8' >/dev/null ||
    fail "swap-lru's overhead is not sim's with pcie3 ($want): $js"
fi
"$GMS_BIN" fit "$UNET" --policies dtr --quiet | grep -q '^link' && fail "a link line without swapping"
none=$("$GMS_BIN" fit "$UNET" --policies lru --max-overhead 1.000001 --quiet)
echo "$none" | tail -1 | grep -q "^best *none: no policy passes" || fail "no 'none': $none"

expect_fail "--link: no policy searched swaps" "$GMS_BIN" fit "$UNET" --policies dtr --link pcie3
expect_fail "--host-memory: no policy searched swaps" \
  "$GMS_BIN" fit "$UNET" --policies dtr --host-memory 1GiB
expect_fail "link" "$GMS_BIN" fit "$UNET" --policies swap-lru --link warp9
echo ok
