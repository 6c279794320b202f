#!/usr/bin/env bash
# 'gpumemsim record' error paths that need no GPU: usage errors (exit 2), a missing command
# (127), a missing tracer library, and a job that never touches CUDA: its exit status passes
# through, the message says nothing was recorded, and no partial trace is left.
. "$(dirname "$0")/common.sh"
: "${GMS_FAKE_JOB:?GMS_FAKE_JOB must point at the fake job (run through ctest)}"
OUT=$T/out.gmt

run_rc "$GMS_BIN" record --help
[ $RC = 0 ] || fail "--help exits $RC"
grep -q -- "-o OUT.gmt" "$T/cmd.stdout" || fail "--help shows no usage"

run_rc "$GMS_BIN" record -- true
[ $RC = 2 ] || fail "missing -o: exit $RC, want 2"
expect_err_matches "missing -o" "missing -o"

run_rc "$GMS_BIN" record -o "$OUT" true
[ $RC = 2 ] || fail "no --: exit $RC, want 2"
expect_err_matches "no --" "after '--'"

run_rc "$GMS_BIN" record -o "$OUT" --
[ $RC = 2 ] || fail "nothing after --: exit $RC, want 2"
expect_err_matches "nothing after --" "missing the command"

run_rc "$GMS_BIN" record -o "$OUT" -- gms-no-such-command-here
[ $RC = 127 ] || fail "missing command: exit $RC, want 127"
expect_err_matches "missing command" "cannot run 'gms-no-such-command-here'.*not found"
no_leftovers "missing command"

run_rc "$GMS_BIN" record -o "$OUT" -- sh -c 'exit 3'
[ $RC = 3 ] || fail "job exit 3 came back as $RC"
expect_err_matches "no CUDA" "no CUDA activity was recorded"
no_leftovers "job without CUDA"

run_rc "$GMS_BIN" record -o "$OUT" -- true
[ $RC = 1 ] || fail "successful job without CUDA: exit $RC, want 1 (nothing recorded)"
expect_err_matches "no CUDA (exit 0)" "no CUDA activity was recorded"
no_leftovers "job without CUDA (exit 0)"

# several processes initialised CUDA, none did anything on it: said, not a silent exit 1
run_rc "$GMS_BIN" record -o "$OUT" -- "$GMS_FAKE_JOB" idle-fork
[ $RC = 1 ] || fail "idle processes: exit $RC, want 1 (nothing recorded)"
expect_err_matches "idle processes" "no CUDA activity was recorded.*2 processes"
no_leftovers "idle processes"

run_rc "$GMS_BIN" record -o "$OUT" -- sh -c 'kill -TERM $$'
[ $RC = 143 ] || fail "job killed by SIGTERM: exit $RC, want 143"
no_leftovers "killed job"

run_rc "$GMS_BIN" record -o "$T/no-such-dir/out.gmt" -- true
[ $RC = 1 ] || fail "unwritable output: exit $RC, want 1"
expect_err_matches "unwritable output" "no-such-dir"

GMS_TRACER_LIB=$T/missing.so run_rc "$GMS_BIN" record -o "$OUT" -- true
[ $RC = 1 ] || fail "missing tracer library: exit $RC, want 1"
expect_err_matches "missing tracer library" "GMS_TRACER_LIB=.*missing.so: no such file"

# a gpumemsim with no tracer library beside it (as in a build without the CUDA toolkit)
mkdir -p "$T/bin"
cp "$GMS_BIN" "$T/bin/gpumemsim"
GMS_TRACER_LIB= run_rc "$T/bin/gpumemsim" record -o "$OUT" -- true
[ $RC = 1 ] || fail "no tracer library: exit $RC, want 1"
expect_err_matches "no tracer library" "no tracer library.*CUDA toolkit.*not found when gpumemsim was built"
no_leftovers "no tracer library"

# the job's environment: the tracer injected, PyTorch switched to cudaMallocAsync on request
(cd "$T" && run_rc "$GMS_BIN" record --pytorch -o out.gmt -- sh -c \
  'echo "$CUDA_INJECTION64_PATH|$PYTORCH_CUDA_ALLOC_CONF|$GMS_TRACE_DIR" >'"$T/env.txt")
IFS='|' read -r inj conf dir <"$T/env.txt"
[ "$inj" = "$GMS_TRACER_LIB" ] || fail "CUDA_INJECTION64_PATH='$inj', want $GMS_TRACER_LIB"
[ "$conf" = "backend:cudaMallocAsync" ] || fail "--pytorch set PYTORCH_CUDA_ALLOC_CONF='$conf'"
[ -n "$dir" ] && [ ! -e "$dir" ] || fail "raw directory '$dir' missing from the env or left behind"
case $dir in /*) ;; *) fail "GMS_TRACE_DIR '$dir' is relative (the job may change directory)" ;; esac
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False run_rc "$GMS_BIN" record --pytorch -o "$OUT" \
  -- sh -c 'echo "$PYTORCH_CUDA_ALLOC_CONF" >'"$T/env.txt"
[ "$(cat "$T/env.txt")" = "expandable_segments:False,backend:cudaMallocAsync" ] ||
  fail "--pytorch did not extend an existing PYTORCH_CUDA_ALLOC_CONF: $(cat "$T/env.txt")"
echo "ok"
