#!/usr/bin/env bash
# End-to-end (issue 32 item 12): 'info' on a truncated .gmt says "truncated after event N" as its
# result and exits non-zero with nothing on standard output, as sim refuses the file; with
# --allow-truncated it summarizes the complete events, warns and exits 0.
GMS_NO_SHARED=1
. "$(dirname "$0")/common.sh"
cd "$T"
# big enough for several compressed blocks, so that its first half holds complete events
"$GMS_BIN" synth --model transformer --layers 12 --hidden 256 --heads 4 --vocab 2048 \
  --iterations 40 -o big.gmt >/dev/null || fail "synth"
size=$(wc -c <big.gmt)
head -c $((size / 2)) big.gmt >half.gmt
"$GMS_BIN" sim half.gmt --budget 0.5 >/dev/null 2>&1 && fail "sim took the truncated trace"
for fmt in "" --json; do
  rc=0; "$GMS_BIN" info $fmt half.gmt >out 2>err || rc=$?
  [ "$rc" -eq 1 ] || fail "info $fmt on a truncated .gmt: exit $rc: $(cat out err)"
  [ ! -s out ] || fail "info $fmt printed a summary of a truncated trace: $(cat out)"
  grep -Eq "half\.gmt: truncated after event [1-9][0-9]*" err || fail "info $fmt: $(cat err)"
  grep -q -- "--allow-truncated" err || fail "info $fmt: no way out named: $(cat err)"
done
n=$(grep -Eo "truncated after event [0-9]+" err | grep -Eo "[0-9]+$")
"$GMS_BIN" info --json --allow-truncated half.gmt >half.json 2>err || fail "--allow-truncated"
grep -q "warning: .*truncated after event $n" err || fail "no warning: $(cat err)"
[ "$(jq .events half.json)" = "$n" ] || fail "--allow-truncated: events $(jq .events half.json), not $n"
"$GMS_BIN" info big.gmt >/dev/null || fail "info on the whole trace"
help=$("$GMS_BIN" info --help)
grep -q -- "--allow-truncated" <<<"$help" || fail "--help lacks --allow-truncated"
echo ok
