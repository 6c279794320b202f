#!/usr/bin/env bash
# The tracer's overhead, measured as the review asks (docs/tracer.md, "Overhead"): steady-state
# step time *inside* the job (synchronised wall time per step, median of the steps after the
# first GMS_OVERHEAD_SKIP), one configuration at a time, so the tracer's own cost is not mixed
# with emit_nvtx, the allocator backend, process start-up or lifting. Needs a GPU.
#
#   GMS_BUILD=build scripts/bench/tracer-overhead.sh > overhead.md
#
# Configurations (the tracer is injected through its environment variables directly, never
# through `gpumemsim record`, so lifting is not timed):
#   MLP (tests/gpu/mlp_train.c, GMS_OVERHEAD_MLP_STEPS steps, batch 64):
#     plain | tracer
#   PyTorch (scripts/examples/train.py MODEL --time, when torch is importable), per model:
#     (a) plain  (b) backend:cudaMallocAsync  (c) (b) + emit_nvtx  (d) (c) under the tracer
#     (e) (b) under the tracer without NVTX
# Prints a markdown table with the medians and the ratios d/c (the tracer's cost), e/b (the
# tracer without NVTX) and c/a (the recording setup's cost). GMS_OVERHEAD_JOB overrides the
# MLP program (the tests use a fake job that prints step times).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${GMS_BUILD:-build}
lib=$build/tracer/libgpumemsim-tracer.so
mlp=${GMS_OVERHEAD_JOB:-$build/tests/gpu/gms_gpu_mlp_train}
steps=${GMS_OVERHEAD_MLP_STEPS:-200}
skip=${GMS_OVERHEAD_SKIP:-5}
models=${GMS_OVERHEAD_MODELS:-mlp resnet18}
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$mlp" ] || { echo "tracer-overhead.sh: no $mlp (build with the CUDA toolkit)" >&2; exit 2; }
[ -f "$lib" ] || { echo "tracer-overhead.sh: no $lib (build with the CUDA toolkit)" >&2; exit 2; }

# median_ms FILE PATTERN: the median of the step times after the first $skip steps; lines
# matching PATTERN carry "N MS" as their last two fields
median_ms() {
  grep -E "$2" "$1" | awk '{print $NF}' | tail -n +$((skip + 1)) | sort -g |
    awk '{v[NR] = $1} END { if (NR == 0) { print "NA"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f\n", m }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || b == 0) print "NA"; else printf "%.3f\n", a / b }'; }
# run NAME PATTERN ENV... -- CMD...: runs CMD with ENV, prints the median step time
run() {
  local name=$1 pat=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$tmp/raw-$name"
  if ! env "${envs[@]}" GMS_TRACE_DIR="$tmp/raw-$name" timeout 300 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    echo "tracer-overhead.sh: $name failed: $(tail -n 3 "$tmp/$name.err")" >&2
    echo NA; return
  fi
  median_ms "$tmp/$name.out" "$pat"
}
tracer_env=(CUDA_INJECTION64_PATH="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")")
tracer_env+=(NVTX_INJECTION64_PATH="${tracer_env[0]#*=}")

echo "| workload | configuration | median step ms | ratio |"
echo "|---|---|---|---|"
p=$(run mlp-plain '^step_ms ' GMS_STEP_TIMES=1 -- "$mlp" "$steps" 64)
t=$(run mlp-tracer '^step_ms ' GMS_STEP_TIMES=1 "${tracer_env[@]}" -- "$mlp" "$steps" 64)
echo "| MLP (C, cuBLAS), $steps steps, batch 64 | plain | $p | |"
echo "| | under the tracer | $t | tracer/plain $(ratio "$t" "$p") |"

if ! timeout 120 "$py" -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
  echo
  echo "PyTorch configurations NOT RUN: $py cannot import torch with CUDA" >&2
  echo "PyTorch: not run (no torch with CUDA)"
  exit 0
fi
asyncb=PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync
for m in $models; do
  args=(scripts/examples/train.py "$m" --time --iters 30 --warmup 3)
  pat='^gpumemsim-step-ms: '
  a=$(run "$m-a" "$pat" PYTORCH_CUDA_ALLOC_CONF= -- "$py" "${args[@]}" --nvtx none)
  b=$(run "$m-b" "$pat" "$asyncb" -- "$py" "${args[@]}" --nvtx none)
  c=$(run "$m-c" "$pat" "$asyncb" -- "$py" "${args[@]}" --nvtx ops)
  d=$(run "$m-d" "$pat" "$asyncb" "${tracer_env[@]}" -- "$py" "${args[@]}" --nvtx ops)
  e=$(run "$m-e" "$pat" "$asyncb" "${tracer_env[@]}" -- "$py" "${args[@]}" --nvtx none)
  echo "| PyTorch $m | (a) plain | $a | |"
  echo "| | (b) cudaMallocAsync | $b | b/a $(ratio "$b" "$a") |"
  echo "| | (c) (b) + emit_nvtx | $c | c/a $(ratio "$c" "$a") (recording setup) |"
  echo "| | (d) (c) under the tracer | $d | d/c $(ratio "$d" "$c") (tracer) |"
  echo "| | (e) (b) under the tracer, no NVTX | $e | e/b $(ratio "$e" "$b") |"
done
