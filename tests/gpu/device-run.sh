#!/usr/bin/env bash
# The first GPU session in one command: the review's test plan (docs/tracer.md, "First GPU run")
# steps 1-5 on a lent GPU machine, which has no package registry. Run from the repository root:
#
#   tests/gpu/device-run.sh [--cpu-only] [--steps 1,2,3,4,5]
#   tests/gpu/device-run.sh --unpack-only DIR    (unpack .deps/ into DIR, print the build env)
#
# Step 1  probe the machine; unpack the carried Debian packages (scripts/fetch-device-deps.sh,
#         .deps/) into $WORK/deps when cmake or a -dev package is missing (never into /);
#         configure and build in $WORK/build; run the tracer/record CTest cases.
# Step 2  the CUDA MLP at raw level: GMS_TRACER_DEBUG=1, rawdump.py, check_trace.py mlp.
# Step 3  PyTorch (scripts/examples/train.py) at raw level, and which libcupti copies a traced
#         torch process maps (review D2).
# Step 4  edge cases: SIGINT/SIGTERM during a job (no hang, trace_complete no), exit with and
#         without GMS_TRACER_NO_FINALIZE, bf16 matmul (TMA, D5), CUDA graphs, torch.compile.
# Step 5  overhead: scripts/bench/tracer-overhead.sh (steady-state step time inside the job).
# --cpu-only runs step 1 without the GPU parts (what can be tested on a machine without one).
#
# Every job runs under `timeout`; logs, raw dumps and traces go to $OUT (default
# /tmp/gms-device-out), also packed as $OUT/device-run.tgz. $WORK defaults to /tmp/gms-device.
# Exit status: 0 when every step that ran passed its checks, 1 otherwise, 2 on a setup error.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/gms-device-out}
WORK=${WORK:-/tmp/gms-device}
DEPS_DIR=${DEPS_DIR:-$SRC/.deps}
PY=${PYTHON:-python3}
cpu_only=0
unpack_to=""
steps=1,2,3,4,5
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu-only) cpu_only=1 ;;
    --unpack-only) unpack_to=${2:?--unpack-only needs a folder}; shift ;;
    --steps) steps=${2:?--steps needs a list like 1,2}; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "device-run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

B=$WORK/build
G=$B/cli/gpumemsim
MLP=$B/tests/gpu/gms_gpu_mlp_train
LIB=$B/tracer/libgpumemsim-tracer.so

# ---- unpacking the carried packages (also used on a CPU machine by the tests) ----
# unpack_deps DIR: every .deb of $DEPS_DIR extracted under DIR; .pc files point into DIR.
unpack_deps() {
  local d=$1 f
  DEPS_DIR=$(cd "$DEPS_DIR" 2>/dev/null && pwd) || { echo "no folder $DEPS_DIR (run scripts/fetch-device-deps.sh)"; return 1; }
  mkdir -p "$d"
  for f in "$DEPS_DIR"/*.deb; do
    [ -e "$f" ] || { echo "no .deb files in $DEPS_DIR (run scripts/fetch-device-deps.sh)"; return 1; }
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$f" "$d" || return 1
    else # no dpkg: a .deb is an ar archive holding data.tar.*
      local x
      x=$(mktemp -d) && (cd "$x" && ar x "$f" && tar xf data.tar.* -C "$d") || return 1
      rm -rf "$x"
    fi
  done
  # .pc files name /usr: make them name the unpacked tree
  find "$d" -name '*.pc' -exec sed -i -E "s#^(prefix|exec_prefix|libdir|includedir)=/usr#\\1=$d/usr#" {} +
  return 0
}
# deps_env DIR: PATH/PKG_CONFIG_PATH/LD_LIBRARY_PATH for the build tools only (not the jobs)
deps_env() {
  local d=$1 arch
  arch=$(ls "$d/usr/lib" 2>/dev/null | grep -- '-linux-gnu$' | head -1)
  echo "PATH=$d/usr/bin:$PATH PKG_CONFIG_LIBDIR=$d/usr/lib/$arch/pkgconfig:$d/usr/share/pkgconfig LD_LIBRARY_PATH=$d/usr/lib/$arch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

if [ -n "$unpack_to" ]; then
  mkdir -p "$unpack_to" && unpack_to=$(cd "$unpack_to" && pwd) || exit 2
  unpack_deps "$unpack_to" || exit 1
  deps_env "$unpack_to"
  exit 0
fi

mkdir -p "$OUT" "$WORK" || { echo "device-run.sh: cannot create $OUT or $WORK" >&2; exit 2; }
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
failures=0
note() { echo "$*" | tee -a "$SUMMARY"; }
fail() { note "FAIL: $*"; failures=$((failures + 1)); }
want_step() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
pack() { tar czf "$OUT/device-run.tgz" -C "$OUT" --exclude device-run.tgz . 2>/dev/null; }
trap pack EXIT

# ---- step 1: probe and build ----
step1() {
  note "== step 1: probe and build"
  {
    set -x
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    uname -a; cat /etc/os-release; ldd --version | head -1
    cmake --version; gcc --version | head -1
    for p in libzstd jansson sqlite3 check; do pkg-config --modversion $p || echo "MISSING $p"; done
    ls -d /usr/local/cuda* /opt/cuda* 2>/dev/null
    find /usr /opt -name 'libcupti.so*' 2>/dev/null
    timeout 120 "$PY" -c 'import torch,os;print(torch.__version__,torch.version.cuda,os.path.dirname(torch.__file__))'
    set +x
  } >"$OUT/probe.txt" 2>&1
  local need=0 p
  command -v cmake >/dev/null || need=1
  for p in libzstd jansson sqlite3; do pkg-config --exists $p 2>/dev/null || need=1; done
  local envs=""
  if [ $need = 1 ] || [ "${GMS_FORCE_DEPS:-0}" = 1 ]; then
    rm -rf "$WORK/deps"
    if ! unpack_deps "$WORK/deps" >"$OUT/deps.log" 2>&1; then
      fail "step 1: cannot unpack $DEPS_DIR (see deps.log)"; return 1
    fi
    envs=$(deps_env "$WORK/deps")
    note "step 1: build tools and libraries from the carried packages in $WORK/deps"
  fi
  # GMS_TESTS=OFF on a GPU machine without `check`; the tracer and the MLP still build
  local tests=ON
  env $envs pkg-config --exists check 2>/dev/null || tests=OFF
  rm -rf "$B"
  if ! env $envs cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGMS_TESTS=$tests \
       >"$OUT/cmake.log" 2>&1; then
    fail "step 1: cmake failed (see cmake.log)"; return 1
  fi
  if ! env $envs timeout 900 cmake --build "$B" -j "$(nproc)" >"$OUT/build.log" 2>&1; then
    fail "step 1: build failed (see build.log)"; return 1
  fi
  "$G" --help >/dev/null 2>&1 || { fail "step 1: $G does not run (missing libraries?)"; return 1; }
  note "step 1: built (GMS_TESTS=$tests); tracer: $([ -f "$LIB" ] && echo yes || echo NO), MLP: $([ -x "$MLP" ] && echo yes || echo NO)"
  if [ $tests = ON ]; then
    if timeout 600 ctest --test-dir "$B" -R 'tracer|record' --output-on-failure >"$OUT/ctest.log" 2>&1; then
      note "step 1: tracer/record CTest cases pass"
    else
      fail "step 1: tracer/record CTest cases (see ctest.log)"
    fi
  fi
  [ $cpu_only = 1 ] || [ -f "$LIB" ] || { fail "step 1: no tracer library: CUDA toolkit with CUPTI not found"; return 1; }
  return 0
}

# ---- step 2: the MLP, raw level ----
step2() {
  note "== step 2: MLP at raw level"
  rm -rf "$WORK/raw-mlp"
  GMS_TRACER_DEBUG=1 timeout 180 "$G" record --raw-keep --raw-dir "$WORK/raw-mlp" -o "$OUT/mlp.gmt" \
    -- "$MLP" 3 64 >"$OUT/mlp.record.log" 2>&1
  local rc=$?
  [ $rc = 0 ] || fail "step 2: record of the MLP exited $rc (see mlp.record.log)"
  "$PY" "$SRC/tests/gpu/rawdump.py" "$WORK"/raw-mlp/gms-*.raw >"$OUT/mlp.raw.txt" 2>&1
  grep -q "INFO end = exit" "$OUT/mlp.raw.txt" || fail "step 2: no 'end = exit' in the raw file"
  grep -q "INFO nvtx_injection = forwarded" "$OUT/mlp.raw.txt" || fail "step 2: NVTX was not forwarded (D2)"
  grep -Eq "^# LAUNCH: [1-9][0-9]*, with pointers [1-9]" "$OUT/mlp.raw.txt" || fail "step 2: no LAUNCH with pointers (D4)"
  grep -q "MARKER start domains: none" "$OUT/mlp.raw.txt" && fail "step 2: no NVTX ranges recorded"
  if [ -f "$OUT/mlp.gmt" ]; then
    "$G" convert -q "$OUT/mlp.gmt" -o "$WORK/mlp.log" --to dtr-log &&
      "$PY" "$SRC/tests/gpu/check_trace.py" mlp "$WORK/mlp.log" --iters 3 --batch 64 >"$OUT/mlp.check.txt" 2>&1 ||
      fail "step 2: check_trace.py mlp (see mlp.check.txt)"
  fi
}

# ---- step 3: PyTorch, raw level ----
step3() {
  note "== step 3: PyTorch at raw level"
  if ! timeout 120 "$PY" -c 'import torch, torchvision; assert torch.cuda.is_available()' >/dev/null 2>&1; then
    note "step 3: NOT RUN: python3 cannot import torch and torchvision with CUDA"; return 0
  fi
  local m n rc
  for m in "mlp --iters 2" "resnet18 --iters 2" "gpt --iters 3 --seq-lens 64,256,128"; do
    n=${m%% *}
    rm -rf "$WORK/raw-$n"
    # shellcheck disable=SC2086
    timeout 300 "$G" record --pytorch --raw-keep --raw-dir "$WORK/raw-$n" -o "$OUT/t-$n.gmt" \
      -- "$PY" "$SRC/scripts/examples/train.py" $m >"$OUT/t-$n.log" 2>&1
    rc=$?
    [ $rc = 0 ] || fail "step 3: $n: record exited $rc"
    "$PY" "$SRC/tests/gpu/rawdump.py" "$WORK"/raw-$n/gms-*.raw >"$OUT/t-$n.raw.txt" 2>&1
    grep -q "MARKER start domains: none" "$OUT/t-$n.raw.txt" && fail "step 3: $n: no NVTX range reached the tracer (D2)"
    if [ -f "$OUT/t-$n.gmt" ]; then
      "$G" convert -q "$OUT/t-$n.gmt" -o "$WORK/t-$n.dtr" --to dtr-log &&
        "$PY" "$SRC/tests/gpu/check_trace.py" pytorch "$WORK/t-$n.dtr" --job "$OUT/t-$n.log" \
          >"$OUT/t-$n.check.txt" 2>&1 || fail "step 3: $n: check_trace.py pytorch"
    fi
  done
  CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB GMS_TRACE_DIR=$WORK timeout 120 "$PY" -c '
import torch
torch.cuda.nvtx.range_push("x"); torch.zeros(1, device="cuda"); torch.cuda.nvtx.range_pop()
print(*sorted({l.split()[-1] for l in open("/proc/self/maps") if "cupti" in l}), sep="\n")' \
    >"$OUT/torch-cupti-maps.txt" 2>&1
}

# ---- step 4: edge cases ----
step4() {
  note "== step 4: edge cases"
  local rc how
  for how in INT TERM; do
    rm -rf "$WORK/raw-sig$how"
    timeout -s "$how" 8 "$G" record --raw-keep --raw-dir "$WORK/raw-sig$how" -o "$OUT/sig$how.gmt" \
      -- "$MLP" 1000 64 >"$OUT/sig$how.log" 2>&1
    rc=$?
    [ $rc = 124 ] || [ $rc -ge 128 ] || [ $rc = 1 ] || fail "step 4: SIG$how: record exited $rc"
    "$PY" "$SRC/tests/gpu/rawdump.py" "$WORK"/raw-sig$how/gms-*.raw >"$OUT/sig$how.raw.txt" 2>&1
    grep -q "INFO end = signal" "$OUT/sig$how.raw.txt" || note "step 4: SIG$how: no 'end = signal' (job handled it)"
  done
  for fin in 0 1; do
    GMS_TRACER_NO_FINALIZE=$fin timeout 180 "$G" record -o "$WORK/fin$fin.gmt" -- "$MLP" 2 64 \
      >"$OUT/finalize$fin.log" 2>&1 || fail "step 4: exit with GMS_TRACER_NO_FINALIZE=$fin: status $?"
  done
  if timeout 60 "$PY" -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
    cat >"$WORK/edge.py" <<'PYEOF'
import sys, torch
what = sys.argv[1]
dev = "cuda"
with torch.autograd.profiler.emit_nvtx():
    if what == "bf16":  # Hopper TMA GEMM (review D5): aten::mm must show 2 inputs, 1 output
        a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
        b = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
        torch.cuda.nvtx.range_push("gpumemsim:iteration=1"); c = a @ b; torch.cuda.nvtx.range_pop()
    elif what == "graph":  # graph kernels: kernels_without_launch counted, no crash
        x = torch.randn(1024, device=dev); s = torch.cuda.Stream(); g = torch.cuda.CUDAGraph()
        with torch.cuda.stream(s):
            y = x * 2
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            y = x * 2
        for _ in range(3):
            g.replay()
    elif what == "compile":  # Triton launches via cuLaunchKernel: LAUNCHes carry pointers
        m = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU()).to(dev)
        f = torch.compile(m)
        f(torch.randn(64, 256, device=dev)).sum().backward()
torch.cuda.synchronize()
PYEOF
    for e in bf16 graph compile; do
      rm -rf "$WORK/raw-$e"
      timeout 300 "$G" record --pytorch --raw-keep --raw-dir "$WORK/raw-$e" -o "$OUT/edge-$e.gmt" \
        -- "$PY" "$WORK/edge.py" $e >"$OUT/edge-$e.log" 2>&1 || note "step 4: edge $e: record exited $?"
      "$PY" "$SRC/tests/gpu/rawdump.py" "$WORK"/raw-$e/gms-*.raw >"$OUT/edge-$e.raw.txt" 2>&1
    done
  else
    note "step 4: PyTorch edge cases NOT RUN: no torch with CUDA"
  fi
}

# ---- step 5: overhead ----
step5() {
  note "== step 5: overhead (steady-state step time inside the job)"
  GMS_BUILD=$B timeout 540 "$SRC/scripts/bench/tracer-overhead.sh" >"$OUT/overhead.md" 2>"$OUT/overhead.log" ||
    fail "step 5: tracer-overhead.sh (see overhead.log)"
}

want_step 1 && { step1 || { note "stopping: the build is needed by every later step"; exit 1; }; }
if [ $cpu_only = 1 ]; then
  note "steps 2-5: NOT RUN (--cpu-only)"
else
  [ -x "$G" ] || { note "no $G: run step 1 first"; exit 2; }
  want_step 2 && step2
  want_step 3 && step3
  want_step 4 && step4
  want_step 5 && step5
fi
note "device-run: $failures failure(s); logs in $OUT"
[ $failures = 0 ]
