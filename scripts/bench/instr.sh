#!/usr/bin/env bash
# Instructions per executed op, old and new: the simulation's own instruction count
# (valgrind --tool=callgrind, collected inside sim_runner_run only, so loading is left out)
# over its executed ops, for GMS_INSTR_POLICIES (default msps capuchin) at GMS_INSTR_BUDGETS
# (default 0.7 0.9) on the real traces of ../shared (the ETs converted by the new binary, the
# DTR logs) and a GPT synth of GMS_INSTR_ITERS iterations (default 20: callgrind runs ~50x
# slower than native; GMS_REAL_GPT1000 names a made trace instead). A count does not depend on
# the machine's load, which wall times on a shared machine do (issue 26 goal 3). Needs
# valgrind. Usage: GMS_BIN=<new>/cli/gpumemsim GMS_OLD_BIN=<old>/cli/gpumemsim
# scripts/bench/instr.sh. Prints a markdown table; numbers go to docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${GMS_BIN:?set GMS_BIN (the new gpumemsim)}"
old="${GMS_OLD_BIN:?set GMS_OLD_BIN (the old gpumemsim)}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
command -v valgrind >/dev/null || { echo "instr.sh: valgrind is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$shared"/traces/pytorch-et/*_et.json.gz; do
  "$bin" convert "$f" -o "$tmp/$(basename "$f" .json.gz).gmt" >/dev/null 2>&1 || true
done
synth="${GMS_REAL_GPT1000:-$tmp/gpt-synth.gmt}"
[ -f "$synth" ] || "$bin" synth --model transformer --iterations "${GMS_INSTR_ITERS:-20}" \
  --vary-input 128:512 -o "$synth" >/dev/null 2>&1
# ir BIN TRACE POLICY BUDGET: "INSTRUCTIONS OPS" ("- 0" when the run fails or executes nothing)
ir() {
  local j n c
  j=$("$1" sim "$2" --policy "$3" --budget "$4" --json 2>/dev/null) || { echo "- 0"; return; }
  n=$(sed -n 's/.*"ops_executed": \([0-9]*\).*/\1/p' <<<"$j")
  # the function that runs a simulation: gcc splits sim_runner_run into a wrapper that
  # tail-calls sim_runner_run.part.0 (a toggle on both would switch collection off again)
  # (without the split the first name matches nothing): the larger count is the run's
  local fn k
  c=0
  for fn in sim_runner_run.part.0 sim_runner_run; do
    k=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$fn" \
          "$1" sim "$2" --policy "$3" --budget "$4" 2>&1 >/dev/null |
          sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    [ "${k:-0}" -gt "$c" ] && c=$k
    [ "$c" -gt 100000 ] && break
  done
  echo "${c:--} ${n:-0}"
}
echo '| trace | policy | budget | old instr/op | new instr/op | old / new |'
echo '|---|---|---:|---:|---:|---:|'
read -r -a pols <<<"${GMS_INSTR_POLICIES:-msps capuchin}"
for t in "$synth" "$tmp"/*_et.gmt "$shared"/traces/dtr-iclr21/*.log; do
  for p in "${pols[@]}"; do
    for b in ${GMS_INSTR_BUDGETS:-0.7 0.9}; do
      read -r co n < <(ir "$old" "$t" "$p" "$b")
      read -r cn _ < <(ir "$bin" "$t" "$p" "$b")
      [ "$n" -gt 0 ] 2>/dev/null && [ "$co" != - ] && [ "$cn" != - ] || continue
      awk -v t="$(basename "$t" | cut -d- -f1)" -v p="$p" -v b="$b" -v co="$co" -v cn="$cn" -v n="$n" \
        'BEGIN{printf "| %s | %s | %s | %.0f | %.0f | %.2fx |\n", t, p, b, co / n, cn / n, co / cn}'
    done
  done
done
