#!/usr/bin/env bash
# Solve time and gap of `gpumemsim optimal` against budget (issue 19's goals), as markdown
# rows for docs/benchmarks.md. Graphs: synthetic transformers coarsened by layers (65 and 305
# nodes) and one at op level (2,091 nodes, LP bound only).
#   scripts/bench-optimal.sh [BUILD_DIR] [OUT_DIR]     (BUILD_DIR default build)
# Environment: LIMIT60, LIMIT300, LIMIT2000 (seconds per solve; defaults 240, 300, 120),
# RATIOS60, RATIOS300 (budgets as ratios of the unconstrained peak), PROGRAMS60, PROGRAMS300
# ("checkmate tightened" / "tightened checkmate@0.8": a program, or program@ratio to run it
# at that ratio only), SKIP2000=1, MEMLIMIT_KB for the 2,000-node LP (default 8000000:
# refuse rather than push a shared machine into swapping).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/cli/gpumemsim"
out="${2:-build/bench-optimal}"
mkdir -p "$out"
L60="${LIMIT60:-240}" L300="${LIMIT300:-300}" L2000="${LIMIT2000:-120}"
R60="${RATIOS60:-0.9 0.75 0.65 0.6}" R300="${RATIOS300:-0.8 0.65}"
# shellcheck source=scripts/bench/lib/optimal_graphs.sh
. scripts/bench/lib/optimal_graphs.sh # tr28, tr148 and tr24ops in $out

row() { # graph limit ratio extra-args...
  local g=$1 lim=$2 r=$3; shift 3
  local j rc=0
  j=$("$bin" optimal "$out/$g.json" --budget "$r" --time-limit "$lim" --json "$@" 2>"$out/err") || rc=$?
  if [ -z "$j" ]; then echo "| $g | $* | $r | error: $(head -c 200 "$out/err" | tr '\n' ' ') |"; return; fi
  echo "$j" | python3 -c "
import json,sys
d=json.load(sys.stdin)
f=lambda x: '-' if x is None else ('%.6g' % x)
prog=d.get('program','checkmate') + (' relax' if d['mode']=='relax' else '')
bb=d.get('solver_bound')
print('| %s (%d nodes) | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %.2f |' % (
  '$g', d['nodes'], prog, f(d['budget_ratio']), d['status'], f(d.get('objective')),
  f(d.get('lower_bound')), f(bb), f(d.get('seed_objective')),
  '-' if d.get('gap') is None else '%.2f%%' % (100*d['gap']), d['solve_seconds'], d['lp_seconds']))"
}
echo "| graph | program | budget | status | objective ms | LP bound ms | MILP bound ms | seed ms | gap | solve s | LP s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
runs() { # graph limit ratios programs
  local g=$1 lim=$2 r p
  for r in $3; do
    for p in $4; do
      case "$p" in *@*) [ "${p#*@}" = "$r" ] || continue; p=${p%@*} ;; esac
      if [ "$p" = tightened ]; then row "$g" "$lim" "$r" --tighten; else row "$g" "$lim" "$r"; fi
    done
  done
}
[ "${SKIP2000:-0}" = 1 ] || ( ulimit -v "${MEMLIMIT_KB:-8000000}"; row tr24ops "$L2000" 0.7 --relax )
runs tr28 "$L60" "$R60" "${PROGRAMS60:-checkmate tightened}"
runs tr148 "$L300" "$R300" "${PROGRAMS300:-tightened checkmate@0.8}"
