#!/usr/bin/env bash
# Malformed DTR logs of every kind fail with "gpumemsim convert: FILE:LINE: ..." and leave no
# output file (nor temporary file); bad arguments and unreadable inputs give clear errors.
. "$(dirname "$0")/common.sh"
mkdir -p "$T/in" "$T/out"
R='{"INSTRUCTION":"RELEASE","NAME":"x1"}'
CALL='{"ARGS":["x1"],"INSTRUCTION":"CALL","NAME":"view","RESULT":["x2"],"TIME":"10"}'
MEM='{"INSTRUCTION":"MEMORY","MEMORY":"64","NAME":"x2"}'
AL='{"ALIAS":"0","INSTRUCTION":"ALIAS","NAME":"x2"}'

# case NAME LINE PHRASE CONTENT: converting CONTENT must fail at LINE with PHRASE
case_() {
  local name=$1 line=$2 phrase=$3 content=$4
  printf '%s\n' "$content" >"$T/in/$name.log"
  expect_fail "$name" "$GMS_BIN" convert "$T/in/$name.log" -o "$T/out/$name.gmt"
  expect_err_matches "$name" "^gpumemsim convert: $T/in/$name.log:$line: .*$phrase"
  [ -z "$(ls -A "$T/out")" ] || fail "$name: left files behind: $(ls -A "$T/out")"
  # the log writer must not leave anything either
  expect_fail "$name to log" "$GMS_BIN" convert "$T/in/$name.log" --to dtr-log -o "$T/out/$name.log"
  [ -z "$(ls -A "$T/out")" ] || fail "$name (to log): left files behind: $(ls -A "$T/out")"
}

case_ not-json 2 "not valid JSON" "$R"$'\n''{"INSTRUCTION":"RELEASE",'
case_ not-object 2 "not a JSON object" "$R"$'\n''[1,2]'
case_ empty-line 2 "empty line" "$R"$'\n'$'\n'"$R"
case_ unknown-instruction 3 'unknown INSTRUCTION "FREE"' "$R"$'\n'"$R"$'\n''{"INSTRUCTION":"FREE","NAME":"x1"}'
case_ missing-instruction 1 'missing "INSTRUCTION"' '{"NAME":"x1"}'
case_ missing-field 1 'CALL: missing "TIME"' '{"ARGS":[],"INSTRUCTION":"CALL","NAME":"v","RESULT":[]}'
case_ ill-typed-field 1 '"ARGS" must be a list' '{"ARGS":"x1","INSTRUCTION":"CALL","NAME":"v","RESULT":[],"TIME":"1"}'
case_ unexpected-key 1 'unexpected key "X"' '{"INSTRUCTION":"RELEASE","NAME":"x1","X":1}'
case_ bad-time 1 '"TIME" is "12a"' '{"ARGS":[],"INSTRUCTION":"CALL","NAME":"v","RESULT":[],"TIME":"12a"}'
case_ bad-memory 2 'MEMORY is "-4"' '{"INSTRUCTION":"CONSTANT","NAME":"x1"}'$'\n''{"INSTRUCTION":"MEMORY","MEMORY":"-4","NAME":"x1"}'
# integers too large are "too large", not "not an integer" (issue 31)
case_ huge-memory 2 'MEMORY is 18446744073709551615 bytes, too large \(a size is at most 9223372036854775807 bytes\)' '{"INSTRUCTION":"CONSTANT","NAME":"x1"}'$'\n''{"INSTRUCTION":"MEMORY","MEMORY":"18446744073709551615","NAME":"x1"}'
case_ huger-memory 2 'MEMORY is 99999999999999999999999 bytes, too large' '{"INSTRUCTION":"CONSTANT","NAME":"x1"}'$'\n''{"INSTRUCTION":"MEMORY","MEMORY":"99999999999999999999999","NAME":"x1"}'
case_ huge-time 1 '"TIME" is 99999999999999999999, too large \(at most 18446744073709551615\)' '{"ARGS":[],"INSTRUCTION":"CALL","NAME":"v","RESULT":[],"TIME":"99999999999999999999"}'
case_ bad-alias 3 'ALIAS is "zero"' "$CALL"$'\n'"$MEM"$'\n''{"ALIAS":"zero","INSTRUCTION":"ALIAS","NAME":"x2"}'
case_ alias-out-of-range 3 'ALIAS 1 is out of range' "$CALL"$'\n'"$MEM"$'\n''{"ALIAS":"1","INSTRUCTION":"ALIAS","NAME":"x2"}'
case_ mutate-out-of-range 1 'index 2 is out of range' '{"ARGS":["x1"],"INSTRUCTION":"MUTATE","MUTATE":[2],"NAME":"add_","TIME":"1"}'
case_ memory-name-mismatch 2 'MEMORY names "x3"' "$CALL"$'\n''{"INSTRUCTION":"MEMORY","MEMORY":"64","NAME":"x3"}'
case_ alias-before-memory 2 'expected the MEMORY line' "$CALL"$'\n'"$AL"
case_ memory-after-constant-missing 2 'expected the MEMORY line of CONSTANT' '{"INSTRUCTION":"CONSTANT","NAME":"x1"}'$'\n'"$R"
case_ stray-memory 2 'stray MEMORY line' "$R"$'\n'"$MEM"
case_ stray-alias 4 'stray ALIAS line' "$CALL"$'\n'"$MEM"$'\n'"$AL"$'\n'"$AL"
case_ truncated-constant 2 'file ends before its MEMORY line' "$R"$'\n''{"INSTRUCTION":"CONSTANT","NAME":"x1"}'
case_ truncated-call 1 'file ends before its ALIAS line' "$CALL"$'\n'"$MEM"

# a truncated .gmt is refused (no shorter trace that looks complete)
"$GMS_BIN" convert -q "$DTR_DIR"/treelstm-*.log -o "$T/in/full.gmt" || fail "convert treelstm"
size=$(wc -c <"$T/in/full.gmt")
head -c $((size / 2)) "$T/in/full.gmt" >"$T/in/half.gmt"
expect_fail "truncated gmt" "$GMS_BIN" convert "$T/in/half.gmt" --to dtr-log -o "$T/out/half.log"
expect_err_matches "truncated gmt" "^gpumemsim convert: .*half\.gmt.*trunc"
[ -z "$(ls -A "$T/out")" ] || fail "truncated gmt: left files behind: $(ls -A "$T/out")"

# an existing output file is untouched by a failed conversion
echo keep >"$T/out/keep.gmt"
expect_fail "keep" "$GMS_BIN" convert "$T/in/not-json.log" -o "$T/out/keep.gmt"
[ "$(cat "$T/out/keep.gmt")" = keep ] || fail "a failed conversion clobbered an existing file"
rm "$T/out/keep.gmt"

# unreadable inputs
expect_fail "missing file" "$GMS_BIN" convert "$T/in/nope.log" -o "$T/out/x.gmt"
expect_err_matches "missing file" "^gpumemsim convert: .*nope\.log: cannot open: No such file"
expect_fail "directory" "$GMS_BIN" convert "$T/in" -o "$T/out/x.gmt"
expect_err_matches "directory" "^gpumemsim convert: .*in: is a directory"
: >"$T/in/empty.log"
expect_fail "empty file" "$GMS_BIN" convert "$T/in/empty.log" -o "$T/out/x.gmt"
expect_err_matches "empty file" "^gpumemsim convert: .*empty\.log: empty file"
printf 'GIF89a' >"$T/in/pic.log"
expect_fail "not a trace" "$GMS_BIN" convert "$T/in/pic.log" -o "$T/out/x.gmt"
expect_err_matches "not a trace" "not a \.gmt trace, DTR JSON log or Kineto trace"
[ -z "$(ls -A "$T/out")" ] || fail "unreadable inputs left files behind: $(ls -A "$T/out")"

# bad arguments
cp "$DTR_DIR"/unet-*.log "$T/in/u.log"
expect_fail "output = input" "$GMS_BIN" convert "$T/in/u.log" --to dtr-log -o "$T/in/u.log"
expect_err_matches "output = input" "is the input file"
expect_fail "output = input (default name)" "$GMS_BIN" convert "$T/in/u.log" --to dtr-log
expect_err_matches "output = input (default name)" "is the input file"
ln -s "$T/in/u.log" "$T/in/link.log"
expect_fail "output = input via a link" "$GMS_BIN" convert "$T/in/link.log" --to dtr-log -o "$T/in/u.log"
cmp "$DTR_DIR"/unet-*.log "$T/in/u.log" || fail "the input was modified"
expect_fail "output is a directory" "$GMS_BIN" convert "$T/in/u.log" -o "$T/out"
expect_err_matches "output is a directory" "is a directory; give a file name"
expect_fail "output folder missing" "$GMS_BIN" convert "$T/in/u.log" --to dtr-log -o "$T/nodir/x.log"
expect_err_matches "output folder missing" "nodir/x\.log: cannot create .*No such file"
# an empty -o: refused before a temporary file appears (run in $T/out, checked empty below)
(cd "$T/out" && "$GMS_BIN" convert "$T/in/u.log" --to dtr-log -o "" >"$T/cmd.stdout" \
  2>"$T/cmd.stderr") && fail "empty output name: succeeded"
expect_err_matches "empty output name" "^gpumemsim convert: empty output path; give a file name"
expect_fail "bad --to" "$GMS_BIN" convert "$T/in/u.log" --to csv -o "$T/out/x"
expect_err_matches "bad --to" "unknown output format 'csv'"
expect_fail "no input" "$GMS_BIN" convert
expect_err_matches "no input" "no input file"
expect_fail "two inputs" "$GMS_BIN" convert "$T/in/u.log" "$T/in/u.log"
expect_fail "unknown option" "$GMS_BIN" convert --frobnicate "$T/in/u.log"
expect_err_matches "unknown option" "unknown option '--frobnicate'"
expect_fail "unknown short option in a group" "$GMS_BIN" convert -qx "$T/in/u.log"
expect_err_matches "unknown short option in a group" "unknown option '-x'"
expect_fail "-o without a value" "$GMS_BIN" convert "$T/in/u.log" -o
expect_err_matches "-o without a value" "^gpumemsim convert: option '-o' needs a value"
"$GMS_BIN" convert --help | grep -q "usage: gpumemsim convert" || fail "--help"
[ -z "$(ls -A "$T/out")" ] || fail "bad arguments left files behind: $(ls -A "$T/out")"
echo "ok"
