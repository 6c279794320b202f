#!/usr/bin/env bash
# The real tracer library under 'gpumemsim record', loaded the way the driver loads it, with the
# CUDA toolkit's stub libcuda (no GPU): CUPTI refuses everything, the tracer says so on stderr,
# the job still exits 0, and record reports "no CUDA activity" with the tracer's own reason.
# Also: the NVTX forwarder, the INFO facts of a first GPU run (read with tests/gpu/rawdump.py),
# and the exit paths (the job's exit status kept, a signal reported as the end).
. "$(dirname "$0")/common.sh"
: "${GMS_FAKE_DRIVER:?run through ctest}"
: "${GMS_REAL_TRACER:?run through ctest}"
: "${GMS_CUDA_STUB:?run through ctest}"
: "${GMS_RAWDUMP:?run through ctest}"
: "${GMS_PYTHON:?run through ctest}"
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
# the trace says which CUPTI recorded it, its version, and that NVTX was forwarded to it
# (review D2, D12): record points the NVTX loader at the tracer, which forwards to libcupti
grep -q "^NVTX_INJECTION64_PATH=$GMS_REAL_TRACER\$" "$T/cmd.stdout" ||
  fail "NVTX_INJECTION64_PATH does not name the tracer: $(grep NVTX_ "$T/cmd.stdout")"
grep -q "^InitializeInjectionNvtx2 returned 1" "$T/cmd.stdout" ||
  fail "the NVTX entry point was not forwarded: $(cat "$T/cmd.stdout")"
"$GMS_PYTHON" "$GMS_RAWDUMP" "$raw" >"$T/dump.txt" || fail "rawdump.py failed on $raw"
for want in "INFO cupti_library = .*libcupti" "INFO cupti_version = [0-9]+ \(built with [0-9]+\)" \
            "INFO nvtx_injection = forwarded to libcupti" "INFO param_layouts = 0 by" \
            "INFO failed_launches = 0" "INFO tma_descriptors = 0 descriptors" \
            "INFO end = exit" "# LAUNCH: 0"; do
  grep -Eq "$want" "$T/dump.txt" || fail "rawdump: no /$want/ in $(cat "$T/dump.txt")"
done

# the job's own exit status survives the tracer's exit path (review D6)
LD_LIBRARY_PATH=$T/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} FAKE_DRIVER_END="exit 3" \
  run_rc timeout 60 "$GMS_BIN" record --raw-keep --raw-dir "$T/raw-exit" -o "$T/exit.gmt" \
  -- "$GMS_FAKE_DRIVER"
[ $RC = 3 ] || fail "a job exiting 3 under the tracer made record exit $RC"
grep -aq "exit" "$T"/raw-exit/gms-*.raw || fail "no end record after exit(3)"

# a job killed by SIGTERM: the tracer flushes without hanging and says how it ended (D8, D9)
LD_LIBRARY_PATH=$T/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} FAKE_DRIVER_END="signal 15" \
  run_rc timeout 60 "$GMS_BIN" record --raw-keep --raw-dir "$T/raw-term" -o "$T/term.gmt" \
  -- "$GMS_FAKE_DRIVER"
[ $RC = 143 ] || fail "a job ended by SIGTERM made record exit $RC, want 143"
"$GMS_PYTHON" "$GMS_RAWDUMP" "$T"/raw-term/gms-*.raw >"$T/term.txt"
grep -q "INFO end = signal 15" "$T/term.txt" || fail "no 'end = signal 15': $(cat "$T/term.txt")"

# GMS_TRACER_EXIT_TIMEOUT is read and the exit path still ends normally within it
mkdir -p "$T/raw-wd"
LD_LIBRARY_PATH=$T/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GMS_TRACER_EXIT_TIMEOUT=2 \
  CUDA_INJECTION64_PATH=$GMS_REAL_TRACER GMS_TRACE_DIR=$T/raw-wd run_rc timeout 60 "$GMS_FAKE_DRIVER"
[ $RC = 0 ] || fail "the job under a 2 s exit watchdog exited $RC"
# an exit path that hangs (GMS_TRACER_TEST_STALL_EXIT stands in for a wedged CUPTI) is cut by
# the watchdog after GMS_TRACER_EXIT_TIMEOUT seconds, with the job's own exit status (D6)
mkdir -p "$T/raw-stall"
start=$(date +%s)
LD_LIBRARY_PATH=$T/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GMS_TRACER_EXIT_TIMEOUT=1 \
  GMS_TRACER_TEST_STALL_EXIT=60 FAKE_DRIVER_END="exit 5" CUDA_INJECTION64_PATH=$GMS_REAL_TRACER \
  GMS_TRACE_DIR=$T/raw-stall run_rc timeout 30 "$GMS_FAKE_DRIVER"
took=$(( $(date +%s) - start ))
[ $RC = 5 ] || fail "a hanging exit path: exit $RC, want the job's 5 (124 = it hung)"
[ $took -lt 20 ] || fail "the watchdog took ${took}s"
expect_err_matches "watchdog message" "did not finish within GMS_TRACER_EXIT_TIMEOUT"
echo "ok"
