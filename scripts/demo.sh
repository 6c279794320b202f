#!/usr/bin/env bash
# The gpumemsim demo: installs the dependencies, builds, sweeps the bundled sample traces with
# every policy over memory budgets of 10%..100% of each trace's peak, and writes
#   out/results.db       every run (SQLite; 'build/cli/gpumemsim db runs out/results.db')
#   out/overhead.png     slowdown vs memory budget, one panel per trace, one line per policy
#   out/timeline.png     memory over time of one busy DTR run (most remats at <= 1.5x cost)
# then prints a summary: per trace and policy, the smallest budget that still runs and the
# slowdown at half the memory.
#   scripts/demo.sh              the samples in traces/samples/*.gmt
#   scripts/demo.sh TRACE...     your own traces (.gmt or DTR logs) instead
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then sed -n '2,12p' "$0"; exit 0; fi

start=$(date +%s)
if [ -t 2 ]; then
  say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
else
  say() { printf '==> %s\n' "$*" >&2; }  # no escape codes in logs and pipes
fi

say "checking dependencies (scripts/setup-deps.sh)"
scripts/setup-deps.sh

say "building gpumemsim (build/)"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target gpumemsim -j "$jobs" >/dev/null
gms=build/cli/gpumemsim

if [ $# -gt 0 ]; then
  traces=("$@")
else
  shopt -s nullglob
  traces=(traces/samples/*.gmt)
  shopt -u nullglob
fi
if [ ${#traces[@]} -eq 0 ]; then
  echo "demo: no sample traces in traces/samples/*.gmt; make some with 'gpumemsim synth'" \
       "or pass trace files: scripts/demo.sh TRACE..." >&2
  exit 1
fi

mkdir -p out
rm -f out/results.db out/results.db-wal out/results.db-shm
say "sweeping ${#traces[@]} traces x every policy x budgets 0.1..1.0 (random: 3 seeds)"
"$gms" sweep "${traces[@]}" --budgets 0.1:1.0:0.1 --seeds 3 --db out/results.db -j "$jobs"

say "drawing charts"
"$gms" plot overhead out/results.db -o out/overhead.png
# the timeline worth looking at: among the DTR runs that cost at most 1.5x, the one that
# rematerialized most (the smaller budget on ties)
pick=$("$gms" db export out/results.db --csv --policy dtr | awk -F, '
  NR > 1 && $9 == "ok" && $10 + 0 <= 1.5 &&
  ($13 + 0 > best || (best == $13 + 0 && $5 + 0 < ratio)) {
    best = $13 + 0; ratio = $5 + 0; name = $1 }
  END { if (name != "") print ratio, name }')
tl_trace=${traces[0]} tl_budget=0.5
if [ -n "$pick" ]; then
  for t in "${traces[@]}"; do
    base=$(basename "$t"); base=${base%.gmt}; base=${base%.log}
    if [ "$base" = "${pick#* }" ]; then tl_trace=$t tl_budget=${pick%% *}; fi
  done
fi
"$gms" plot timeline "$tl_trace" --policy dtr --budget "$tl_budget" -o out/timeline.png

GMS_BIN="$gms" scripts/demo-summary.sh out/results.db

say "done in $(( $(date +%s) - start ))s"
cat >&2 <<EOF
  results:   out/results.db    ($gms db runs out/results.db | less)
  overhead:  out/overhead.png
  timeline:  out/timeline.png  ($tl_trace, dtr, budget $tl_budget)
EOF
