#!/usr/bin/env bash
# Installs every Debian package gpumemsim needs to build, test and draw charts.
# Idempotent and quiet when everything is already there. Run as root (or with sudo available)
# on Debian 12. CUDA/CUPTI is optional and never installed here: the tracer builds only where
# the CUDA toolkit already sits at /usr/local/cuda.
set -euo pipefail

packages=(
  build-essential cmake pkg-config      # compiler and build system
  libzstd-dev                           # .gmt frames
  libjansson-dev                        # DTR JSON logs, Kineto traces
  zlib1g-dev                            # gzip-compressed Kineto traces
  libsqlite3-dev                        # results store
  coinor-libcbc-dev                     # the MILP solver of `gpumemsim optimal` (opt/opt_cbc.c)
  check libsubunit-dev                  # unit tests (check.pc links subunit)
  gnuplot-nox                           # charts (pngcairo, svg, pdfcairo terminals)
  jq                                    # CLI tests check --json output
  python3                               # tests/gpu/check_trace.py and its CI test
  python3-dev                           # the optional Python module (python/); installed
                                        # with the rest, but not required below
)
# clang gives the libFuzzer targets and CI's second compiler (scripts/test.sh --clang); it is
# optional, so only listed when asked for.
if [ "${GMS_WITH_CLANG:-0}" = 1 ]; then packages+=(clang); fi

# Already usable? Then nothing to install, on any system and without root: what the build
# needs is found through pkg-config and the PATH, exactly as CMake finds it.
have_all() {
  command -v cmake >/dev/null && command -v cc >/dev/null && command -v pkg-config >/dev/null &&
    pkg-config --exists libzstd jansson sqlite3 zlib check cbc 2>/dev/null &&
    command -v gnuplot >/dev/null && command -v jq >/dev/null && command -v python3 >/dev/null
}
if [ "${GMS_WITH_CLANG:-0}" != 1 ] && have_all; then exit 0; fi
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup-deps: not a Debian system and some dependencies are missing; install cmake, a C" >&2
  echo "setup-deps: compiler, pkg-config, zstd, jansson, sqlite3, zlib, check, CBC (with their" >&2
  echo "setup-deps: development files), gnuplot, jq and python3, then run this again" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup-deps: need root to install: ${missing[*]}" >&2
    echo "setup-deps: run as root, or install them yourself with apt-get" >&2
    exit 1
  fi
fi
echo "setup-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
