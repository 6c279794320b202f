#!/usr/bin/env bash
# MOCCASIN's program beside Checkmate's (issue 19, solver goals), the boundary bound beside the
# LP bound, on the graphs of scripts/bench-optimal.sh. Markdown rows for docs/benchmarks.md.
#   scripts/bench-moccasin.sh [BUILD_DIR] [OUT_DIR] RUN...
# A RUN is GRAPH:RATIO:PROGRAM[:LIMIT], GRAPH tr28 (65 nodes), tr148 (305) or tr24ops (2,091),
# PROGRAM one of checkmate, tightened, moccasin (C = 2), moccasin-max (no limit on C),
# moccasin-C<k>, lp (the tightened LP), boundary. LIMIT: seconds (default 600). Each run is
# also stopped by `timeout` LIMIT + 120 s (CBC's own limit is not a hard stop). GMS_CBC_PARAMS
# passes CBC settings through (docs/optimal.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/cli/gpumemsim"
out="${2:-build/bench-optimal}"
shift 2 || true
mkdir -p "$out"
# shellcheck source=scripts/bench/lib/optimal_graphs.sh
. scripts/bench/lib/optimal_graphs.sh # tr28, tr148 and tr24ops in $out

echo "| graph | program | budget | status | objective ms | bound ms (LP or boundary) | MILP bound ms | seed ms | gap | solve s | user s | LP s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for run in "$@"; do
  IFS=: read -r g r p lim <<<"$run"
  lim=${lim:-600}
  case "$p" in
    checkmate) args=() ;;
    tightened) args=(--tighten) ;;
    moccasin) args=(--formulation moccasin) ;;
    moccasin-max) args=(--formulation moccasin --copies max) ;;
    moccasin-C*) args=(--formulation moccasin --copies "${p#moccasin-C}") ;;
    lp) args=(--relax --tighten) ;;
    boundary) args=(--bound boundary) ;;
    *) echo "unknown program $p" >&2; exit 2 ;;
  esac
  rc=0
  /usr/bin/time -f "%U" -o "$out/user" timeout $((lim + 120)) "$bin" optimal "$out/$g.json" --budget "$r" \
    --time-limit "$lim" --json "${args[@]}" >"$out/run.json" 2>"$out/err" || rc=$?
  user=$(tail -1 "$out/user" 2>/dev/null || echo -)
  if [ ! -s "$out/run.json" ]; then
    echo "| $g | $p | $r | no answer (exit $rc$([ $rc = 124 ] && echo ', killed by timeout')) | - | - | - | - | - | - | $user | - |"
    continue
  fi
  P="$p" U="$user" python3 - "$out/run.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
f = lambda x: '-' if x is None else ('%.6g' % x)
gap = d.get('gap')
print('| %s (%d nodes) | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s | %.2f |' % (
    os.path.basename(d['graph']).replace('.json', ''), d['nodes'], os.environ['P'],
    f(d['budget_ratio']), d['status'], f(d.get('objective')) if d['mode'] != 'relax' else '-',
    f(d.get('lower_bound')), f(d.get('solver_bound')), f(d.get('seed_objective')),
    '-' if gap is None else '%.2f%%' % (100 * gap), d['solve_seconds'], os.environ['U'],
    d['lp_seconds']))
PY
done
