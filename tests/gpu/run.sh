#!/usr/bin/env bash
# Records the known GPU workloads with the CUPTI tracer, checks the traces, replays them, and
# measures the tracer's overhead. Needs a CUDA GPU; not part of CTest. One command:
#
#   tests/gpu/run.sh [BUILD_DIR]          (default: build; configure it with the CUDA toolkit)
#
# Writes everything under $GMS_GPU_OUT (default BUILD_DIR/gpu-run): the traces (*.gmt), their
# DTR-log form, the checker reports, job logs, and overhead.md (a table for docs/benchmarks.md).
# PyTorch workloads (scripts/examples/train.py) run when python3 can import torch and
# torchvision; otherwise they are reported as NOT RUN and the script exits 3 (never a silent
# skip). GMS_GPU_TORCH=0 leaves them out on purpose (exit 0 if the rest passed).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "run.sh: no build dir ${1:-build}" >&2; exit 2; }
OUT=${GMS_GPU_OUT:-$BUILD/gpu-run}
G=$BUILD/cli/gpumemsim
MLP=$BUILD/tests/gpu/gms_gpu_mlp_train
LIB=$BUILD/tracer/libgpumemsim-tracer.so
PY=${PYTHON:-python3}
mkdir -p "$OUT"
failures=0
not_run=0

say() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
die() { echo "run.sh: $*" >&2; exit 2; }

[ -x "$G" ] || die "no $G: build first (cmake -S $SRC -B $BUILD && cmake --build $BUILD)"
[ -f "$LIB" ] || die "no $LIB: the build did not find the CUDA toolkit with CUPTI"
[ -x "$MLP" ] || die "no $MLP: the build did not find cuBLAS"
command -v nvidia-smi >/dev/null && nvidia-smi -L || echo "run.sh: warning: nvidia-smi not found"

check_gmt() { # NAME KIND ARGS...: convert to a DTR log and run the checker
  local name=$1 kind=$2; shift 2
  "$G" info "$OUT/$name.gmt" >"$OUT/$name.info.txt" || fail "$name: gpumemsim info failed"
  "$G" convert -q "$OUT/$name.gmt" -o "$OUT/$name.log" --to dtr-log ||
    { fail "$name: convert failed"; return; }
  "$PY" "$SRC/tests/gpu/check_trace.py" "$kind" "$OUT/$name.log" "$@" >"$OUT/$name.check.txt"
  local rc=$?
  cat "$OUT/$name.check.txt"
  [ $rc = 0 ] || fail "$name: trace checks failed (see $OUT/$name.check.txt)"
}

replay() { # NAME: replay under a few budgets if 'gpumemsim sim' exists in this build
  local name=$1
  if ! "$G" sim --help >/dev/null 2>&1; then
    echo "replay of $name: NOT RUN ('gpumemsim sim' is not implemented in this build)"
    not_run=$((not_run + 1))
    return
  fi
  : >"$OUT/$name.sim.jsonl"
  for b in 1.0 0.9 0.8 0.7 0.6 0.5 0.4; do
    timeout 600 "$G" sim "$OUT/$name.gmt" --budget "$b" --json >>"$OUT/$name.sim.jsonl" 2>>"$OUT/$name.sim.err" ||
      fail "sim $name --budget $b exited $? (see $OUT/$name.sim.err)"
  done
  cat "$OUT/$name.sim.jsonl"
  # with the whole baseline as budget every trace must replay
  head -n 1 "$OUT/$name.sim.jsonl" | grep -q '"status": "ok"' ||
    fail "$name does not replay at budget 1.0"
}

say "MLP (cuBLAS, plain C): record, check, replay"
timeout 600 "$G" record -o "$OUT/mlp.gmt" -- "$MLP" 3 64 >"$OUT/mlp.record.log" 2>&1 ||
  fail "record mlp exited $? (see $OUT/mlp.record.log)"
cat "$OUT/mlp.record.log"
if [ -f "$OUT/mlp.gmt" ]; then
  check_gmt mlp mlp --iters 3 --batch 64
  replay mlp
fi

say "PyTorch examples"
torch_ok=0
if [ "${GMS_GPU_TORCH:-1}" = 0 ]; then
  echo "left out (GMS_GPU_TORCH=0)"
elif "$PY" -c 'import torch, torchvision; assert torch.cuda.is_available()' 2>/dev/null; then
  torch_ok=1
  for job in "resnet18 --iters 3" "gpt --iters 3 --seq-lens 64,256,128" "mlp --iters 3"; do
    name=torch-${job%% *}
    # shellcheck disable=SC2086
    timeout 600 "$G" record --pytorch -o "$OUT/$name.gmt" -- "$PY" "$SRC/scripts/examples/train.py" $job \
      >"$OUT/$name.record.log" 2>&1 || fail "record $name exited $? (see $OUT/$name.record.log)"
    tail -n 8 "$OUT/$name.record.log"
    [ -f "$OUT/$name.gmt" ] || continue
    check_gmt "$name" pytorch --job "$OUT/$name.record.log"
    replay "$name"
  done
else
  echo "NOT RUN: $PY cannot import torch + torchvision with CUDA (pip install torch torchvision)"
  not_run=$((not_run + 1))
fi

say "Tracer overhead (steady-state step time inside the job, per configuration)"
if [ ! -f "$OUT/mlp.gmt" ]; then
  echo "NOT RUN: the MLP could not be recorded above"
  failures=$((failures + 1))
else
  GMS_BUILD=$BUILD GMS_OVERHEAD_MLP_STEPS=${GMS_GPU_OVERHEAD_ITERS:-200} \
    timeout 1200 "$SRC/scripts/bench/tracer-overhead.sh" >"$OUT/overhead.md" 2>"$OUT/overhead.err" ||
    fail "tracer-overhead.sh exited $? (see $OUT/overhead.err)"
  {
    echo
    echo "Machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1);" \
         "$(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p' | head -1)."
    echo "Command: tests/gpu/run.sh $BUILD (scripts/bench/tracer-overhead.sh: median synchronised"
    echo "step time after 5 warm-up steps; the tracer injected by its environment, no lifting)."
  } >>"$OUT/overhead.md"
  cat "$OUT/overhead.md"
fi

say "Result"
echo "traces and reports in $OUT"
if [ $failures -gt 0 ]; then
  echo "$failures check(s) FAILED"
  exit 1
fi
if [ $not_run -gt 0 ] && [ "${GMS_GPU_TORCH:-1}" != 0 ]; then
  echo "all run checks passed; $not_run part(s) NOT RUN (see above)"
  exit 3
fi
echo "all checks passed"
