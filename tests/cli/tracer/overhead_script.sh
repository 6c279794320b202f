#!/usr/bin/env bash
# scripts/bench/tracer-overhead.sh without a GPU: a fake MLP prints its step times (100 ms for
# the first steps, to be skipped as warm-up, then 10 ms plain or 12.5 ms when the tracer is
# injected); the script must report the medians of the steady steps and their ratio, take the
# tracer through its environment variables (not `gpumemsim record`), and fail cleanly without
# a build.
. "$(dirname "$0")/common.sh"
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$T/build/tracer"
: >"$T/build/tracer/libgpumemsim-tracer.so"
cat >"$T/fake_mlp.sh" <<'JOB'
#!/bin/sh
[ "$GMS_STEP_TIMES" = 1 ] || { echo "GMS_STEP_TIMES not set" >&2; exit 3; }
ms=10.0
[ -n "${CUDA_INJECTION64_PATH:-}" ] && ms=12.5
case "${NVTX_INJECTION64_PATH:-}" in *libgpumemsim-tracer.so|"") ;; *) exit 4 ;; esac
i=0
while [ $i -lt "$1" ]; do
  if [ $i -lt 5 ]; then echo "step_ms $i 100.0"; else echo "step_ms $i $ms"; fi
  i=$((i + 1))
done
JOB
chmod +x "$T/fake_mlp.sh"
GMS_BUILD=$T/build GMS_OVERHEAD_JOB=$T/fake_mlp.sh GMS_OVERHEAD_MLP_STEPS=20 PYTHON=false \
  run_rc "$SRC/scripts/bench/tracer-overhead.sh"
[ $RC = 0 ] || fail "tracer-overhead.sh exited $RC: $(cat "$T/cmd.stderr")"
grep -q "| plain | 10.0000 |" "$T/cmd.stdout" || fail "plain median: $(cat "$T/cmd.stdout")"
grep -q "| under the tracer | 12.5000 | tracer/plain 1.250 |" "$T/cmd.stdout" ||
  fail "tracer median or ratio: $(cat "$T/cmd.stdout")"
grep -q "NOT RUN" "$T/cmd.stderr" || fail "the PyTorch part was skipped without saying so"
# no build: a clear error, exit 2
GMS_BUILD=$T/nothing run_rc "$SRC/scripts/bench/tracer-overhead.sh"
[ $RC = 2 ] || fail "without a build: exit $RC, want 2"
expect_err_matches "no build" "tracer-overhead.sh: no .*gms_gpu_mlp_train"
echo ok
