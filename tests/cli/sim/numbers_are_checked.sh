#!/usr/bin/env bash
# Numeric options out of range are one clear line naming the option and its range, exit 2,
# before anything runs (issue 31): durations in sim, sweep and calibrate (the option's name,
# not its value, even as "--op-overhead 5"), calibrate's measured slowdown, plugin limits;
# and a budget range of tiny ratios is a range, not "no budgets".
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
U="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

# refused CMD... REGEX: exit 2, one line on stderr matching REGEX, nothing on stdout
refused() {
  local re=${*: -1} out err rc=0
  set -- "${@:1:$#-1}"
  "$GMS_BIN" "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] || fail "'$*' exited $rc, not 2: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "'$*' printed more than one line: $(cat err.txt)"
  grep -Eq -- "$re" err.txt || fail "'$*': '$(cat err.txt)' does not match /$re/"
  [ ! -s out.txt ] || fail "'$*' printed a result: $(cat out.txt)"
}
dur="expected a duration with a unit \\(500ns, 20us, 1.5ms\\), from 0 to 10s$"
for o in op-overhead search-cost evict-cost; do
  for v in 5 11s 1e300s -1us; do
    refused sim "$U" --budget 0.5 "--$o" "$v" "^gpumemsim sim: --$o '$v': $dur"
    refused sim "$U" --budget 0.5 "--$o=$v" "^gpumemsim sim: --$o '$v': $dur"
    refused sweep "$U" --db x.db "--$o" "$v" "^gpumemsim sweep: --$o '$v': $dur"
  done
done
for o in search-cost evict-cost; do
  refused calibrate "$U" --budget 0.5 --measured 1.1 "--$o" 5 "^gpumemsim calibrate: --$o '5': $dur"
done
[ ! -e x.db ] || fail "a refused sweep created its store"
for v in 1e17 0.5 1001 inf nan; do
  refused calibrate "$U" --budget 0.5 --measured "$v" \
    "^gpumemsim calibrate: --measured '$v': expected a slowdown from 1 to 1000 "
done
for c in sim fit; do
  refused "$c" "$U" --plugin-timeout -5 "^gpumemsim $c: --plugin-timeout '-5': give seconds from 0 \\(no limit\\) to"
done
# sizes name their range
for v in 99999999999999999999B 1e30B 0 -1 11; do
  refused sim "$U" --budget "$v" "^gpumemsim sim: (bad )?--budget '$v': .*(at most 10|below 16EiB)"
done
refused sim "$U" --budget 0.5 --policy swap-lru --host-memory 1e30GiB \
  "^gpumemsim sim: --host-memory '1e30GiB' must be a positive byte count below 16EiB"
refused sim "$U" --budget 0.5 --allocator caching --alloc-conf max_split_size_mb:99999999999999999999 \
  "max_split_size_mb:99999999999999999999 must be a whole number of MiB, at least 20 .* at most [0-9]+$"
# the largest slowdown taken is reached or refused with a message that is true
rc=0
"$GMS_BIN" calibrate "$U" --budget 0.5 --measured 1000 >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 0 ] || grep -Eq "would need an op overhead above 10 s|no op overhead up to [1-9][0-9]* ns" err.txt ||
  fail "calibrate --measured 1000: $(cat err.txt)"
grep -q "up to 0 ns" err.txt && fail "calibrate claims no overhead up to 0 ns: $(cat err.txt)"

# a range of ratios too small to write in fixed point still sweeps, as the single ratio does
"$GMS_BIN" sweep "$U" --policies dtr --budgets 1e-20:1e-20:1 --db tiny.db --quiet ||
  fail "--budgets 1e-20:1e-20:1 was refused"
"$GMS_BIN" db export tiny.db --csv | grep -q ',1e-20,' || fail "the 1e-20 run is not stored: $("$GMS_BIN" db export tiny.db --csv)"
echo ok
