#!/usr/bin/env bash
# The real tracer library under 'gpumemsim record', loaded the way the driver loads it, with the
# CUDA toolkit's stub libcuda (no GPU): CUPTI refuses everything, the tracer says so on stderr,
# the job still exits 0, and record reports "no CUDA activity" with the tracer's own reason.
. "$(dirname "$0")/common.sh"
: "${GMS_FAKE_DRIVER:?run through ctest}"
: "${GMS_REAL_TRACER:?run through ctest}"
: "${GMS_CUDA_STUB:?run through ctest}"
mkdir -p "$T/stub"
ln -sf "$GMS_CUDA_STUB" "$T/stub/libcuda.so.1"
export GMS_TRACER_LIB=$GMS_REAL_TRACER
LD_LIBRARY_PATH=$T/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  run_rc "$GMS_BIN" record --raw-keep -o "$T/out.gmt" -- "$GMS_FAKE_DRIVER"
grep -q "InitializeInjection returned 1" "$T/cmd.stdout" ||
  fail "the job did not run to its end: $(cat "$T/cmd.stdout" "$T/cmd.stderr")"
[ $RC = 1 ] || fail "record exited $RC, want 1 (nothing recorded)"
expect_err_matches "tracer message" "gpumemsim-tracer: cannot subscribe to CUPTI callbacks"
expect_err_matches "record message" "no CUDA activity was recorded.*tracer said: cannot subscribe"
[ ! -e "$T/out.gmt" ] || fail "a trace was written from nothing"
kept=$(sed -n 's/^raw records kept in //p' "$T/cmd.stdout")
raw=$(find "$kept" -name 'gms-*.raw' | head -1)
[ -n "$raw" ] || fail "the tracer wrote no raw file"
# the tracer ran its exit path: the file ends with the dropped count and the end record
grep -aq "dropped_records" "$raw" && grep -aq "end" "$raw" || fail "no end-of-job records in $raw"
echo "ok"
