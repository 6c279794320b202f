#!/usr/bin/env bash
# Installs the dependencies, builds gpumemsim and runs every test (Check units + CLI end to end).
#   scripts/test.sh              normal build in build/
#   scripts/test.sh --werror     warnings are errors (CI)
#   scripts/test.sh --sanitize   ASan+UBSan build in build-asan/
# Extra arguments after -- go to ctest (e.g. -- -R sim).
set -euo pipefail
cd "$(dirname "$0")/.."

werror=OFF; sanitize=OFF; builddir=build; ctest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --werror) werror=ON ;;
    --sanitize) sanitize=ON; builddir=build-asan ;;
    --) shift; ctest_args=("$@"); break ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

scripts/setup-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$builddir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGMS_WERROR="$werror" -DGMS_SANITIZE="$sanitize" >/dev/null
cmake --build "$builddir" -j "$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
rc=0
ctest --test-dir "$builddir" --output-on-failure -j "$jobs" "${ctest_args[@]}" || rc=$?
# Tests that need the third-party data in ../shared are not registered where it is missing
# (cmake/GmsTesting.cmake); say which, and why, instead of passing over them in silence.
if [ -s "$builddir/tests-not-run.txt" ]; then
  echo "test.sh: these tests were not run (CI, with ../shared beside the checkout, runs them):"
  sed 's/^/  /' "$builddir/tests-not-run.txt"
fi
exit "$rc"
