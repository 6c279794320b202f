#!/usr/bin/env bash
# Scaling of the simulator with the trace's size (issue 15): CPU time and peak memory of one
# `gpumemsim sim` process against the number of ops, for a synthetic chain (`sim --chain N`,
# 2N+4 ops, budget 0.3) and GPT-style synthetic traces (`synth --model transformer
# --iterations K --vary-input 128:512`, about 1060 ops per iteration, budget 0.7), every
# policy, exact (simrd's full pool scan) and sampled (`--sample 32`). A run over the time or
# memory limit prints '>' and the larger sizes of that column are skipped.
# Limits: GMS_SCALE_TIME (wall s, default 300) and GMS_SCALE_MEM (KiB, default 8 GiB).
# Run through scripts/bench.sh scale, or directly with GMS_BIN set.
#
# Old against new: GMS_SCALE_OLD_BIN=/path/to/old/gpumemsim runs, before the tables, the
# 1M-op GPT-style trace at budget 0.7 with dtr, msps and dtr-eq and the no-budget load,
# alternating the old and the new binary GMS_SCALE_PAIRS times (default 2), and prints
# both CPU times (user + sys) and peak RSS side by side with the speed-up. Only CPU time
# compares on a shared machine; alternating spreads the load over both.
# GMS_SCALE_ONLY_COMPARE=1 stops after that comparison; GMS_SCALE_CMP_ITERATIONS (1000)
# shrinks its trace for a quick look.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${GMS_BIN:-${GMS_BUILD:-$PWD/build-bench}/cli/gpumemsim}"
[ -x "$bin" ] || { echo "scale.sh: $bin is missing; run scripts/bench.sh scale" >&2; exit 1; }
tlim="${GMS_SCALE_TIME:-300}"
mlim="${GMS_SCALE_MEM:-8388608}"
pols=(dtr dtr-eq dtr-local lru size msps random)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_one ARGS...: prints "CPU_S s RSS MiB", or ">" when the run failed or hit a limit
run_one() {
  if ( ulimit -v "$mlim"; /usr/bin/time -o "$tmp/time" -f '%U %S %M' \
         timeout -s KILL "$tlim" "$bin" sim "$@" >/dev/null 2>"$tmp/err" ); then
    awk '{printf "%.2f s %.0f MiB", $1 + $2, $3 / 1024}' "$tmp/time"
  else
    printf '>'
  fi
}

# table TITLE SIZES_LABEL SIZES TRACE_FN BUDGET MODE_ARGS...
table() {
  local title=$1 budget=$2 sample=$3; shift 3
  echo "-- $title, budget $budget, ${sample:-exact} (CPU s, peak RSS)"
  printf '| ops |'; for p in "${pols[@]}"; do printf ' %s |' "$p"; done; echo
  printf '|---|'; for p in "${pols[@]}"; do printf -- '---|'; done; echo
  declare -A gave_up=()
  for spec in "$@"; do
    local ops=${spec%%=*} args=${spec#*=}
    printf '| %s |' "$ops"
    for p in "${pols[@]}"; do
      if [ -n "${gave_up[$p]:-}" ]; then printf ' - |'; continue; fi
      # shellcheck disable=SC2086
      r=$(run_one $args --budget "$budget" --policy "$p" ${sample:+--sample $sample})
      [ "$r" = ">" ] && { gave_up[$p]=1; r="> ${tlim} s or $((mlim / 1048576)) GiB"; }
      printf ' %s |' "$r"
    done
    echo
  done
}

# cpu_rss BIN ARGS...: prints "CPU_S RSS_MB" of one `BIN sim ARGS` run, or "> >" on failure
cpu_rss() {
  local b=$1; shift
  if ( ulimit -v "$mlim"; /usr/bin/time -o "$tmp/time" -f '%U %S %M' \
         timeout -s KILL "$tlim" "$b" sim "$@" >/dev/null 2>"$tmp/err" ); then
    awk '{printf "%.2f %.0f", $1 + $2, $3 / 1024}' "$tmp/time"
  else
    printf '> >'
  fi
}

if [ -n "${GMS_SCALE_OLD_BIN:-}" ]; then
  old="$GMS_SCALE_OLD_BIN"
  [ -x "$old" ] || { echo "scale.sh: GMS_SCALE_OLD_BIN=$old is not executable" >&2; exit 1; }
  "$bin" synth --model transformer --iterations "${GMS_SCALE_CMP_ITERATIONS:-1000}" --vary-input 128:512 \
    -o "$tmp/cmp.gmt" >/dev/null
  echo "-- old ($old) against new ($bin): GPT-style trace of ${GMS_SCALE_CMP_ITERATIONS:-1000} iterations, budget 0.7, CPU s (user + sys), peak RSS"
  echo "| run | old CPU | new CPU | speed-up | old peak | new peak |"
  echo "|---|---:|---:|---:|---:|---:|"
  for what in dtr msps dtr-eq load; do
    if [ "$what" = load ]; then args=(--policy lru); else args=(--budget 0.7 --policy "$what"); fi
    for ((i = 0; i < ${GMS_SCALE_PAIRS:-2}; i++)); do
      read -r oc om <<<"$(cpu_rss "$old" "$tmp/cmp.gmt" "${args[@]}")"
      read -r nc nm <<<"$(cpu_rss "$bin" "$tmp/cmp.gmt" "${args[@]}")"
      ratio=$(awk -v o="$oc" -v n="$nc" 'BEGIN { if (o + 0 > 0 && n + 0 > 0) printf "%.1fx", o / n; else print "-" }')
      echo "| $what | $oc s | $nc s | $ratio | $om MB | $nm MB |"
    done
  done
  echo
  [ -n "${GMS_SCALE_ONLY_COMPARE:-}" ] && exit 0
fi

chains=()
for n in 5000 50000 500000; do chains+=("$((2 * n + 4))=--chain $n"); done
gpts=()
for k in 10 100 1000; do
  "$bin" synth --model transformer --iterations "$k" --vary-input 128:512 -o "$tmp/gpt$k.gmt" >/dev/null
  ops=$("$bin" info "$tmp/gpt$k.gmt" | sed -n 's/^ops: *\([0-9]*\).*/\1/p')
  gpts+=("$ops=$tmp/gpt$k.gmt")
done
for s in "" 32; do
  table "chain" 0.3 "$s" "${chains[@]}"
  echo
  table "GPT-style transformer" 0.7 "$s" "${gpts[@]}"
  echo
done
