#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang, ASan and UBSan in build-fuzz/ and runs
# each for SECONDS (default 60). Not part of CI: run it after touching a parser.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 600 fuzz_gmt_frames
# Corpora persist in build-fuzz/corpus/<target>/ (seeded from a synthetic .gmt and the first
# lines of the shared DTR logs); crashes land in build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
[ $# -gt 0 ] && shift
GMS_WITH_CLANG=1 scripts/setup-deps.sh
CC=clang cmake -S . -B build-fuzz -DGMS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=($(ls tests/fuzz/fuzz_*.c tests/unit/*/fuzz_*.c | xargs -n1 basename | sed 's/\.c$//' |
             grep -v common))
fi
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}" gmt_read_bench >/dev/null

mkdir -p build-fuzz/artifacts build-fuzz/seeds
seeds=build-fuzz/seeds
build-fuzz/tests/bench/gmt_read_bench --synth 300 "$seeds/synth.gmt" 3 >/dev/null
logs="${GMS_SHARED_DIR:-$PWD/../shared}/traces/dtr-iclr21"
for log in "$logs"/*.log; do
  [ -f "$log" ] && head -n 60 "$log" > "$seeds/$(basename "$log" .log).head.log"
done
printf '\x0b\x00GMTRACE\n\x01\x00\x00' > "$seeds/header.frames"
# a 1.1 header, then an event frame: SCOPE begin "a", CONSTANT, SCOPE end (layer scopes)
printf '\x0b\x00GMTRACE\n\x01\x01\x00\x0e\x00E\x00\x01\x0f\x04\x01\x00\x01a\x11\x08\x0f\x01\x02\x02\x00Z\x01' \
  > "$seeds/scopes.frames"

for t in "${targets[@]}"; do
  corpus="build-fuzz/corpus/$t"
  mkdir -p "$corpus"
  case "$t" in
    fuzz_gmt_reader) cp -n "$seeds"/*.gmt "$corpus"/ ;;
    fuzz_gmt_frames) cp -n "$seeds"/*.frames "$corpus"/ ;;
    fuzz_import_et) cp -n tests/unit/traces/data/*.json "$corpus"/ ;;
    fuzz_import_et_kineto) cp -n tests/unit/traces/data/tiny_kineto*.json tests/fuzz/seeds/kineto/*.json "$corpus"/ ;;
    fuzz_opt_graph) cp -n tests/fuzz/seeds/opt_graph/*.json "$corpus"/ ;;
    fuzz_pickle) cp -n tests/fuzz/seeds/pickle/*.pickle "$corpus"/ ;;
    *) cp -n "$seeds"/*.gmt "$seeds"/*.log "$corpus"/ 2>/dev/null || true ;;
  esac
  echo "== $t: ${secs}s"
  bin=$(find build-fuzz/tests -name "$t" -type f -perm -u+x | head -n 1)
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" "$corpus" 2>&1 |
    grep -E '^(#[0-9]+ +DONE|Done|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|stat::peak_rss)' || true
  if ls build-fuzz/artifacts/"$t"-* >/dev/null 2>&1; then
    echo "fuzz.sh: $t found crashes: $(ls build-fuzz/artifacts/"$t"-*)" >&2
    exit 1
  fi
done
