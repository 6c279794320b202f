#!/usr/bin/env bash
# End-to-end: 'gpumemsim sim' on a DTR paper log and its .gmt conversion. Expected numbers
# come from the reference table (simrd's results), not from this program.
set -u
: "${GMS_BIN:?}" "${GMS_SHARED_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$GMS_TMP"
LOG=$(ls "$GMS_SHARED_DIR"/traces/dtr-iclr21/unet-*.log 2>/dev/null | head -1)
CSV="$GMS_SHARED_DIR/reference/simrd-pareto.csv"
[ -f "$LOG" ] || fail "no U-Net log under $GMS_SHARED_DIR/traces/dtr-iclr21 (set GMS_SHARED_DIR)"
[ -f "$CSV" ] || fail "no reference table $CSV"

# the reference row: log, policy, ratio -> "status evictions eager remat peak overhead"
ref() { awk -F, -v l="$(basename "$LOG")" -v p="$1" -v r="$2" \
    '$1==l && $3==p && $4==0 && $5==r {print $9, $11, $12, $13, $14, $10}' "$CSV"; }
# our JSON -> the same fields (jansson prints "key": value)
ours() { sed -E 's/.*"status": "([^"]*)".*"overhead": ([^,]*),.*"evictions": ([0-9]+), "eager_evictions": ([0-9]+),.*"remat_compute": ([0-9]+), "peak_memory": ([0-9]+),.*/\1 \3 \4 \5 \6 \2/'; }

# help, listing, errors
"$GMS_BIN" sim --help | grep -q "usage: gpumemsim sim TRACE" || fail "--help"
[ "$("$GMS_BIN" sim --list-policies | grep -Evc ' (planner|solved): ')" -eq 16 ] ||
  fail "--list-policies does not list 16 eviction policies"
"$GMS_BIN" sim --list-policies | grep -q "^ckpt-all  *planner: " || fail "ckpt-all not listed"
"$GMS_BIN" sim --list-policies | grep -q "^dtr-eq " || fail "dtr-eq not listed"
"$GMS_BIN" sim --list-policies | grep -q "^swap-lru " || fail "swap-lru not listed"
out=$("$GMS_BIN" sim "$LOG" --policy nope 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "valid policies: dtr, dtr-eq" || fail "unknown policy: rc $rc: $out"
out=$("$GMS_BIN" sim "$LOG" --budget lots 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "ratio of baseline memory" || fail "bad budget: rc $rc: $out"
# one meaning everywhere: a plain number is a ratio (2.0 once meant 2 bytes), bytes need a unit
out=$("$GMS_BIN" sim "$LOG" --budget 2.0 --json) || fail "--budget 2.0"
echo "$out" | grep -q '"budget_ratio": 2,' && echo "$out" | grep -q '"status": "ok"' \
  || fail "--budget 2.0 is not twice the baseline: $out"
out=$("$GMS_BIN" sim "$LOG" --budget 0.01 2>&1 >/dev/null) || fail "--budget 0.01"
echo "$out" | grep -q "below the largest op's footprint" || fail "no note below the largest op: $out"
out=$("$GMS_BIN" sim "$LOG" --budget 123456789 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "for bytes give a unit: '123456789B'" \
  || fail "unitless bytes: rc $rc: $out"
out=$("$GMS_BIN" plot timeline "$LOG" --policy dtr --budget 123456789 -o x.svg 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "for bytes give a unit" || fail "plot: unitless bytes: $out"
out=$("$GMS_BIN" sim "$GMS_TMP/missing.log" --budget 0.5 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "missing.log" || fail "missing trace: rc $rc: $out"
out=$("$GMS_BIN" sim 2>&1); rc=$?
[ $rc -eq 2 ] || fail "no TRACE: rc $rc"
# a truncated .gmt (cut in its last frames) is refused, not replayed as if complete
"$GMS_BIN" convert -q "$LOG" -o "$GMS_TMP/whole.gmt" || fail "convert for truncation"
head -c $(( $(stat -c %s "$GMS_TMP/whole.gmt") - 20 )) "$GMS_TMP/whole.gmt" >"$GMS_TMP/cut.gmt"
out=$("$GMS_BIN" sim "$GMS_TMP/cut.gmt" --budget 0.5 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "truncated after event" &&
  echo "$out" | grep -q "incomplete trace" || fail "truncated trace: rc $rc: $out"
out=$("$GMS_BIN" sim "$LOG" --remat-limit 0.5 2>&1); rc=$?
[ $rc -eq 2 ] || fail "remat limit 0.5 accepted"
out=$("$GMS_BIN" sim "$LOG" --semantics other 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--semantics other accepted"

# the log and its .gmt give the reference numbers, ok and oom rows alike
"$GMS_BIN" convert "$LOG" -o "$GMS_TMP/unet.gmt" --quiet || fail "convert"
for case in "dtr 0.5" "dtr 0.4" "msps 0.3" "lru 0.7" "dtr-eq 0.6" "size 0.9" "dtr-local 0.8"; do
    set -- $case
    want=$(ref "$1" "$2")
    [ -n "$want" ] || fail "no reference row for $case"
    for trace in "$LOG" "$GMS_TMP/unet.gmt"; do
        got=$("$GMS_BIN" sim "$trace" --policy "$1" --budget "$2" --json | ours)
        # failed runs: the reference leaves overhead empty, we print null
        [ "$got" = "$want" ] || [ "${got% null}" = "${want% }" ] ||
            fail "$case on $(basename "$trace"): got '$got', reference '$want'"
    done
done

# random trial 3 at 0.5: exactly the reference's trial 3
want=$(awk -F, -v l="$(basename "$LOG")" '$1==l && $3=="random" && $4==3 && $5==0.5 {print $9, $11, $12, $13, $14, $10}' "$CSV")
got=$("$GMS_BIN" sim "$LOG" --policy random --seed 3 --budget 0.5 --json | ours)
[ "$got" = "$want" ] || [ "${got% null}" = "${want% }" ] || fail "random seed 3: got '$got', reference '$want'"

# a ratio and the same budget in bytes are the same run; text output names the fields
bytes=$(awk -F, -v l="$(basename "$LOG")" '$1==l && $3=="dtr" && $5==0.6 {print $6}' "$CSV")
a=$("$GMS_BIN" sim "$LOG" --budget 60% --json | ours)
b=$("$GMS_BIN" sim "$LOG" --budget "${bytes}B" --json | ours)
[ "$a" = "$b" ] || fail "60% vs $bytes bytes: '$a' vs '$b'"
txt=$("$GMS_BIN" sim "$LOG" --budget 0.6)
for k in status overhead evictions rematerialized "peak memory" baseline "simulated time" "wall time"; do
    echo "$txt" | grep -q "^$k" || fail "text output lacks '$k'"
done
# --reference-table: U-Net's rows agree (test_sim_reference replays all 800); a damaged copy
# is refused naming file, line and field
{ head -1 "$CSV"; grep '^unet-' "$CSV"; } >"$GMS_TMP/unet.csv"
"$GMS_BIN" sim --reference-table "$GMS_TMP/unet.csv" --traces "$GMS_SHARED_DIR/traces/dtr-iclr21" \
    >"$GMS_TMP/reftable.out" 2>&1 || fail "reference table: $(tail -3 "$GMS_TMP/reftable.out")"
grep -q '^total .* 160 *160 *160 ' "$GMS_TMP/reftable.out" || fail "reference table: not 160/160 rows exact"
sed '3s/,dtr,0,0.2,[0-9]*,/,dtr,0,0.2,12x,/' "$CSV" >"$GMS_TMP/bad.csv"
if "$GMS_BIN" sim --reference-table "$GMS_TMP/bad.csv" >/dev/null 2>"$GMS_TMP/err"; then
    fail "a reference table with a bad budget was accepted"
fi
grep -q "bad.csv:3: budget '12x' is not a valid value" "$GMS_TMP/err" || fail "bad table: $(cat "$GMS_TMP/err")"
head -1 "$CSV" >"$GMS_TMP/short.csv"
sed -n 2p "$CSV" | cut -d, -f1-14 >>"$GMS_TMP/short.csv"
if "$GMS_BIN" sim --reference-table "$GMS_TMP/short.csv" >/dev/null 2>"$GMS_TMP/err"; then
    fail "a reference table with a short row was accepted"
fi
grep -q "short.csv:2: expected 15 fields" "$GMS_TMP/err" || fail "short row: $(cat "$GMS_TMP/err")"
head -1 "$CSV" >"$GMS_TMP/empty.csv"
if "$GMS_BIN" sim --reference-table "$GMS_TMP/empty.csv" >/dev/null 2>"$GMS_TMP/err"; then
    fail "a reference table without rows passed"
fi
grep -q "empty.csv: the reference table has a header but no rows" "$GMS_TMP/err" ||
    fail "empty table: $(cat "$GMS_TMP/err")"
# options of a single run conflict with the table's own policy/budget/seed per row
for opt in "--policy lru" "--budget 0.5" "--seed 3" "--json"; do
    out=$("$GMS_BIN" sim --reference-table "$GMS_TMP/unet.csv" $opt 2>&1); rc=$?
    [ $rc -eq 2 ] && echo "$out" | grep -q "drop ${opt%% *}" ||
        fail "--reference-table with $opt: rc $rc: $out"
done
echo "ok"
