#!/usr/bin/env bash
# Bad Execution Traces: a truncated gzip, JSON that is not an ET, an unknown schema major.
# Each fails with a message naming the file and what to do, a non-zero exit, and no output.
# Uses only the hand-made ET in the source tree, so it runs on a clone without ../shared.
GMS_NO_SHARED=1
. "$(dirname "$0")/common.sh"
TINY=$GMS_SOURCE_DIR/tests/unit/traces/data/tiny_et.json
mkdir -p "$T/in" "$T/out"

# case NAME REGEX: converting, simulating and summarizing $T/in/NAME must fail with REGEX
case_() {
  local name=$1 re=$2 f=$T/in/$1
  expect_fail "$name convert" "$GMS_BIN" convert "$f" -o "$T/out/$name.gmt"
  expect_err_matches "$name convert" "$f: .*$re"
  [ -z "$(ls -A "$T/out")" ] || fail "$name: left files behind: $(ls -A "$T/out")"
  expect_fail "$name sim" "$GMS_BIN" sim "$f" --budget 0.5
  expect_err_matches "$name sim" "$f: .*$re"
  expect_fail "$name info" "$GMS_BIN" info "$f"
  expect_err_matches "$name info" "$f: .*$re"
}

gzip -c "$TINY" >"$T/whole.gz"
head -c $(( $(stat -c %s "$T/whole.gz") - 40 )) "$T/whole.gz" >"$T/in/truncated.json.gz"
case_ truncated.json.gz "truncated or damaged gzip"

sed 's/"schema":"1.0.1"/"schema":"2.0.0"/' "$TINY" >"$T/in/schema2.json"
grep -q '"2.0.0"' "$T/in/schema2.json" || fail "test setup: schema not replaced"
case_ schema2.json 'schema "2.0.0" is not supported .*record the trace'

printf '{"schema": "1.0.1", "pid": 7, "start_ts": 0}\n' >"$T/in/no-nodes.json"
case_ no-nodes.json 'not a PyTorch Execution Trace: no "nodes" array'

printf '{"schema": "1.0.1", "nodes": [{"id": 1, "name": "x"}, {"id": 2,\n' >"$T/in/cut.json"
case_ cut.json 'not valid JSON at line 2 .*is the file complete'

printf '{"schema": 1, "nodes": []}\n' >"$T/in/schema-number.json"
case_ schema-number.json 'no "schema" string'

# --gpu picks the GPU of the estimate; an unknown one and a trace with its own costs are refused
"$GMS_BIN" convert "$TINY" --gpu a100 -q -o "$T/out/a100.gmt" || fail "convert --gpu a100"
"$GMS_BIN" info "$T/out/a100.gmt" | grep -Eq 'cost_gpu +NVIDIA A100' || fail "--gpu a100 not in the header"
rm -f "$T/out/a100.gmt"
expect_fail "unknown gpu" "$GMS_BIN" convert "$TINY" --gpu b200 -o "$T/out/x.gmt"
expect_err_matches "unknown gpu" 'unknown GPU "b200" .*known: h200, h100, a100, v100, titanv'
"$GMS_BIN" convert "$TINY" -q -o "$T/tiny.gmt" || fail "tiny: convert"
expect_fail "gpu on a .gmt" "$GMS_BIN" convert "$T/tiny.gmt" --gpu a100 -o "$T/out/x.gmt"
expect_err_matches "gpu on a .gmt" 'applies to a PyTorch Execution Trace only'
[ -z "$(ls -A "$T/out")" ] || fail "--gpu errors left files behind: $(ls -A "$T/out")"

# the good file still works through the same paths
"$GMS_BIN" convert "$TINY" -q -o "$T/out/tiny.gmt" || fail "tiny: convert"
"$GMS_BIN" sim "$TINY" --budget 1.0 >/dev/null || fail "tiny: sim"
echo "ok"
