#!/usr/bin/env bash
# Simulator benchmark: (1) the whole reference table (800 simrd runs: 5 logs x 7 policies x 10
# budgets, random x 10 seeds) replayed in one process, CPU time against simrd's recorded
# total; (2) wall time per simulation for every log and policy at budget ratios 0.2, 0.5 and
# 0.8; (3) scaling on a synthetic training-like chain (`gpumemsim sim --chain N`: N layers,
# 2N+4 ops) at a 30% budget. Run through scripts/bench.sh (Release build in build-bench/) or
# directly with GMS_BIN set. Numbers go to docs/benchmarks.md, section "Simulator".
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${GMS_BIN:-${GMS_BUILD:-$PWD/build-bench}/cli/gpumemsim}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
csv="$shared/reference/simrd-pareto.csv"
[ -x "$bin" ] || { echo "sim.sh: $bin is missing; run scripts/bench.sh sim" >&2; exit 1; }
[ -f "$csv" ] || { echo "sim.sh: no reference table $csv (set GMS_SHARED_DIR)" >&2; exit 1; }
ref=("$bin" sim --reference-table "$csv" --traces "$shared/traces/dtr-iclr21" --quiet)

echo "-- reference table, 800 runs in one process, best of 3 (cpu s per table):"
best=""
for i in 1 2 3; do
  line=$("${ref[@]}" | tail -1)
  cpu=$(echo "$line" | sed -n 's/.*cpu \([0-9.]*\) s.*/\1/p')
  if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$cpu; keep=$line; fi
done
echo "$keep"
awk -F, 'NR>1{s+=$15} END{printf "simrd total %.1f s; best cpu %s s -> speed-up %.0fx\n", s, best, s/best}' \
  best="$best" "$csv"

echo
echo "-- per simulation wall time (ms), trial 0; status from the reference (ok/oom/remat-limit)"
"${ref[@]}" --rows 2>/dev/null | awk -F, '
  NR==1 {next}
  $3==0 && ($4=="0.2" || $4=="0.5" || $4=="0.8") {
    split($1, p, "-"); k=p[1] " " $2
    if (!(k in seen)) { seen[k]=1; order[n++]=k }
    t[k, $4]=$8*1000
  }
  END {
    printf "%-26s %10s %10s %10s\n", "log policy", "0.2", "0.5", "0.8"
    for (i=0;i<n;i++) { k=order[i]; printf "%-26s %10.3f %10.3f %10.3f\n", k, t[k,"0.2"], t[k,"0.5"], t[k,"0.8"] }
  }'

echo
# chain_table TITLE EXTRA_ARGS...: wall s per run for each size and policy ('-' = over 120 s
# or 4 GiB, or skipped after a run over 30 s: growth is at least quadratic there)
chain_table() {
echo "-- synthetic chain at a 30% budget, $1 (wall s per simulation)"
shift
printf '%-9s %-9s' layers ops
for p in "${pols[@]}"; do printf ' %12s' "$p"; done; echo
declare -A gave_up=()
for n in 1000 4000 16000 64000 250000 500000; do
  printf '%-9s %-9s' "$n" "$((2 * n + 4))"
  for p in "${pols[@]}"; do
    w=""
    if [ -z "${gave_up[$p]:-}" ]; then
      out=$( (ulimit -v 4194304; timeout 120 "$bin" sim --chain "$n" --budget 0.3 --policy "$p" --json "$@") 2>/dev/null || true)
      w=$(echo "$out" | sed -n 's/.*"wall_s": \([0-9.e-]*\).*/\1/p')
    fi
    if [ -n "$w" ]; then
      printf ' %12.4f' "$w"
      # growth is at least quadratic: skip sizes that would take over 2 minutes
      awk -v w="$w" 'BEGIN{exit !(w > 30)}' && gave_up[$p]=1
    else
      printf ' %12s' -; gave_up[$p]=1
    fi
  done
  echo
done
}
pols=(dtr dtr-eq dtr-local lru)
chain_table "exact (full pool scan, simrd semantics)"
echo
chain_table "--sample 32 (approximate; dtr scores with equivalence classes here)" --sample 32
