#!/usr/bin/env bash
# tests/gpu/check_trace.py, the checker tests/gpu/run.sh applies to real GPU recordings, passes
# on what the tracer records for tests/gpu/mlp_train.c (emulated by fake_job mlp) and fails when
# the expectations are wrong; so the GPU run checks something real.
. "$(dirname "$0")/common.sh"
: "${GMS_FAKE_JOB:?GMS_FAKE_JOB must point at the fake job (run through ctest)}"
: "${GMS_PYTHON:?GMS_PYTHON must name a python3 (run through ctest)}"
CHECK=$GMS_SOURCE_DIR/tests/gpu/check_trace.py
run_rc "$GMS_BIN" record -o "$T/mlp.gmt" -- "$GMS_FAKE_JOB" mlp
[ $RC = 0 ] || fail "record: $(cat "$T/cmd.stderr")"
"$GMS_BIN" convert -q "$T/mlp.gmt" -o "$T/mlp.log" --to dtr-log || fail "convert"
"$GMS_PYTHON" "$CHECK" mlp "$T/mlp.log" --iters 3 --batch 64 >"$T/check.txt" ||
  fail "checker rejects the expected trace: $(grep FAIL "$T/check.txt")"
grep -q "all checks passed" "$T/check.txt" || fail "checker output: $(cat "$T/check.txt")"
if "$GMS_PYTHON" "$CHECK" mlp "$T/mlp.log" --iters 3 --batch 32 >"$T/check.txt"; then
  fail "checker accepted batch 32 for a batch-64 trace"
fi
if "$GMS_PYTHON" "$CHECK" mlp "$T/mlp.log" --iters 4 --batch 64 >"$T/check.txt"; then
  fail "checker accepted 4 iterations for a 3-iteration trace"
fi
echo "ok"
