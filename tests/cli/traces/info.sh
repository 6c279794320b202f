#!/usr/bin/env bash
# info on a DTR log and on its .gmt reports the same numbers; --json is valid JSON with the
# documented keys; counts agree with the log itself and the baseline with the reference
# numbers; bad inputs give clear errors.
. "$(dirname "$0")/common.sh"
command -v jq >/dev/null || fail "jq is required (scripts/setup-deps.sh installs it)"
REF_CSV=$GMS_SHARED_DIR/reference/simrd-pareto.csv
[ -f "$REF_CSV" ] || fail "missing reference numbers $REF_CSV"
n=0
for log in "$DTR_DIR"/*.log; do
  b=$(basename "$log" .log)
  "$GMS_BIN" convert -q "$log" -o "$T/$b.gmt" || fail "convert $b"
  "$GMS_BIN" info --json "$log" >"$T/log.json" || fail "info --json $b.log"
  "$GMS_BIN" info --json "$T/$b.gmt" >"$T/gmt.json" || fail "info --json $b.gmt"
  for f in "$T/log.json" "$T/gmt.json"; do
    jq -e 'type == "object" and (["events_by_kind","ops","distinct_op_names","constant_bytes",
           "baseline_memory","baseline_compute","annotations","meta"] - keys == [])' \
      "$f" >/dev/null ||
      fail "$b: $(basename "$f") is not a JSON object with the documented keys: $(cat "$f")"
  done
  diff <(jq -S 'del(.file, .format, .meta)' "$T/log.json") \
       <(jq -S 'del(.file, .format, .meta)' "$T/gmt.json") >&2 ||
    fail "$b: info differs between the log and its .gmt"
  [ "$(jq -r .format "$T/log.json")/$(jq -r .format "$T/gmt.json")" = dtr-log/gmt ] ||
    fail "$b: formats not detected"
  # numbers checked against the log itself
  calls=$(grep -c '"INSTRUCTION":"CALL"' "$log" || true)
  mutates=$(grep -c '"INSTRUCTION":"MUTATE"' "$log" || true)
  [ "$(jq .ops "$T/log.json")" = $((calls + mutates)) ] || fail "$b: ops != CALL + MUTATE lines"
  [ "$(jq .events_by_kind.CALL "$T/log.json")" = "$calls" ] || fail "$b: CALL count"
  ops=$(jq -r 'select(.INSTRUCTION == "CALL" or .INSTRUCTION == "MUTATE") | .NAME' "$log" |
        sort -u | wc -l)
  [ "$(jq .distinct_op_names "$T/log.json")" = "$ops" ] || fail "$b: distinct op names"
  starts=$(grep -c '"ANNOTATION":"START"' "$log" || true)
  [ "$(jq .annotations.START "$T/log.json")" = "$starts" ] || fail "$b: START annotations"
  [ "$(jq -r .meta.model "$T/gmt.json")" = "$(jq -r .meta.model "$T/log.json")" ] ||
    fail "$b: model lost in conversion"
  # baseline peak memory and compute: the DTR paper simulator's figures for this log
  ref=$(awk -F, -v f="$b.log" '$1 == f { print $7 " " $8; exit }' "$REF_CSV")
  [ -n "$ref" ] || fail "$b.log is not in $REF_CSV"
  got=$(jq -r '"\(.baseline_memory) \(.baseline_compute)"' "$T/log.json")
  [ "$got" = "$ref" ] || fail "$b: baseline memory/compute '$got', reference '$ref'"
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "expected the 5 DTR paper logs, found $n"

# constant bytes = sum of the MEMORY lines that follow CONSTANT lines (U-Net)
log=$(ls "$DTR_DIR"/unet-*.log)
want=$(jq -s '. as $a | [range(1; length) | select($a[. - 1].INSTRUCTION == "CONSTANT")
              | $a[.].MEMORY | tonumber] | add' "$log")
got=$("$GMS_BIN" info --json "$log" | jq .constant_bytes)
[ "$got" = "$want" ] || fail "constant bytes $got, expected $want"
[ "$("$GMS_BIN" info --json "$log" | jq -r .meta.model)" = unet ] || fail "model not guessed"

# a .gmt read from a pipe: the same numbers (one pass feeds statistics and the simulator)
"$GMS_BIN" info --json "$log" >"$T/file.json" || fail "info on the log"
cat "$T/$(basename "$log" .log).gmt" | "$GMS_BIN" info --json /dev/stdin >"$T/pipe.json" ||
  fail "info on a pipe"
diff <(jq -S 'del(.file, .format, .meta)' "$T/file.json") \
     <(jq -S 'del(.file, .format, .meta)' "$T/pipe.json") >&2 || fail "info differs on a pipe"

# text output names the essentials
"$GMS_BIN" info "$log" >"$T/text" || fail "info (text)"
for k in "events:" "ops:" "distinct op names:" "constant bytes:" "baseline memory:" \
         "baseline compute:" "annotations:" "meta:"; do
  grep -q "^$k" "$T/text" || fail "text output lacks '$k'"
done
"$GMS_BIN" info --ops "$log" >"$T/ops" || fail "info --ops"
conv=$(grep -c '"INSTRUCTION":"CALL","NAME":"cudnn_convolution",' "$log")
grep -q "^  cudnn_convolution  *$conv\$" "$T/ops" || fail "--ops: no 'cudnn_convolution $conv' line"
sed -n '/^op names/,$p' "$T/ops" | tail -n +2 | awk 'NR > 1 && $2 > prev { bad = 1 } { prev = $2 }
  END { exit bad || NR != '"$(jq .distinct_op_names "$T/file.json")"' }' ||
  fail "--ops: not every op name, or not most frequent first"

# a truncated .gmt: info refuses it ("truncated after event N", exit 1, no summary); with
# --allow-truncated it reports what it read and warns. The largest trace is cut, so that its
# first half holds complete event frames (a small one reads as 0 events).
big=$(ls -S "$T"/*.gmt | head -1)
size=$(wc -c <"$big")
head -c $((size / 2)) "$big" >"$T/half.gmt"
rc=0; "$GMS_BIN" info --json "$T/half.gmt" >"$T/half.json" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$T/half.json" ] || fail "truncated .gmt: exit $rc, output $(cat "$T/half.json")"
grep -q "truncated after event [0-9]" "$T/err" || fail "no 'truncated after event': $(cat "$T/err")"
"$GMS_BIN" info --json --allow-truncated "$T/half.gmt" >"$T/half.json" 2>"$T/err" ||
  fail "--allow-truncated"
grep -qi "warning: .*trunc" "$T/err" || fail "no truncation warning: $(cat "$T/err")"
all=$("$GMS_BIN" info --json "$big" | jq .events)
jq -e --argjson all "$all" '.events as $n | $n > 0 and $n < $all and
    (.warning | endswith("truncated after event \($n)"))' "$T/half.json" >/dev/null ||
  fail "truncated: expected the events before the cut (of $all) and the warning: $(cat "$T/half.json")"

# bad inputs
expect_fail "missing file" "$GMS_BIN" info "$T/nope.gmt"
expect_err_matches "missing file" "^gpumemsim info: .*nope\.gmt: cannot open: No such file"
expect_fail "directory" "$GMS_BIN" info "$T"
expect_err_matches "directory" "^gpumemsim info: .*: is a directory"
: >"$T/empty.log"
expect_fail "empty file" "$GMS_BIN" info "$T/empty.log"
expect_err_matches "empty file" "^gpumemsim info: .*empty\.log: empty file"
printf '%s\n' '{"INSTRUCTION":"RELEASE","NAME":"x1"}' 'oops' >"$T/bad.log"
expect_fail "malformed" "$GMS_BIN" info "$T/bad.log"
expect_err_matches "malformed" "^gpumemsim info: .*bad\.log:2: not valid JSON"
# parses but cannot be replayed (input never defined): summary, then an error, exit 1
printf '%s\n' '{"ARGS":["x99"],"INSTRUCTION":"CALL","NAME":"relu","RESULT":["x2"],"TIME":"10"}' \
  '{"INSTRUCTION":"MEMORY","MEMORY":"64","NAME":"x2"}' \
  '{"ALIAS":"-1","INSTRUCTION":"ALIAS","NAME":"x2"}' >"$T/undef.log"
expect_fail "unreplayable" "$GMS_BIN" info --json "$T/undef.log"
expect_err_matches "unreplayable" "^gpumemsim info: no baseline: .*undef\.log: .*99"
jq -e '.ops == 1 and .baseline_memory == null and .baseline_compute == null' \
  "$T/cmd.stdout" >/dev/null || fail "unreplayable: summary missing: $(cat "$T/cmd.stdout")"
expect_fail "no file" "$GMS_BIN" info
expect_err_matches "no file" "no trace file"
"$GMS_BIN" info --help | grep -q "usage: gpumemsim info" || fail "--help"
echo "ok: $n logs"
