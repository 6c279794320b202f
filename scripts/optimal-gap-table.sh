#!/usr/bin/env bash
# The table of docs/optimal.md, "Each heuristic's gap on the shared traces" (issue 28, item 6):
# per trace and budget (0.5 .. 0.9 of its baseline peak), each heuristic's overhead, the
# solved schedule's (sweep --policies checkmate, --coarsen auto, a short --time-limit: which
# program auto picked, and its status), the op-level boundary bound of the outputs graph
# (optimal --coarsen outputs --bound boundary: cheap at any size, a valid floor of the
# op-level optimum) and each heuristic's gap to that bound, with the solve times.
#
# usage: scripts/optimal-gap-table.sh [--time-limit S] [--budgets LIST] [--out DIR] TRACE...
#   --time-limit S  seconds per checkmate solve (default 30; the machine is shared: keep it short)
#   --op-time-limit S  seconds per op-level MILP (default: --time-limit; 0: skip that column)
#   --budgets LIST  sweep's budgets (default 0.5:0.9:0.1)
#   --out DIR       where the stores go (default build/gap-table); one store per trace, kept,
#                   so a second run answers the solves from the store's cache
# Prints markdown on stdout. Uses build/cli/gpumemsim (GMS_BIN overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=30; budgets=0.5:0.9:0.1; out=build/gap-table; oplimit=
bin=${GMS_BIN:-build/cli/gpumemsim}
traces=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time-limit) limit=$2; shift ;;
    --op-time-limit) oplimit=$2; shift ;;
    --budgets) budgets=$2; shift ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "optimal-gap-table.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) traces+=("$1") ;;
  esac
  shift
done
[ ${#traces[@]} -gt 0 ] || { echo "optimal-gap-table.sh: give one or more traces" >&2; exit 2; }
mkdir -p "$out"
oplimit=${oplimit:-$limit}
pols=dtr,dtr-eq,msps,lru
for tr in "${traces[@]}"; do
  name=$(basename "$tr"); db="$out/${name%%.*}.db"
  "$bin" sweep "$tr" --policies $pols,checkmate --budgets "$budgets" --time-limit "$limit" \
    --db "$db" -j1 --quiet 2>>"$out/sweep.log"
  # the op-level boundary bound at each stored budget
  : > "$db.bounds"; : > "$db.op"
  python3 -c "
import sqlite3, sys
for (r,) in sqlite3.connect(sys.argv[1]).execute('SELECT DISTINCT ratio FROM runs ORDER BY ratio'):
    print(repr(r))" "$db" | while read -r r; do
    "$bin" optimal "$tr" --coarsen outputs --budget "$r" --bound boundary --json 2>/dev/null \
      | python3 -c "import json,sys; d=json.load(sys.stdin); print(sys.argv[1], d['status'], d['lower_bound'] / d['compute'] if d['lower_bound'] else '', d['solve_seconds'], d['nodes'])" "$r" \
      >> "$db.bounds" || echo "$r infeasible" >> "$db.bounds"
    # the op-level MILP, seeded with the heuristics' runs (one JSON line per budget)
    if [ "$oplimit" != 0 ]; then
      "$bin" optimal "$tr" --coarsen outputs --budget "$r" --time-limit "$oplimit" --json \
        >"$db.op.json" 2>"$db.op.err" || true
      python3 -c "
import json, sys
r = sys.argv[1]
try:
    d = json.load(open(sys.argv[2]))
    print(json.dumps({'ratio': float(r), 'status': d['status'], 'overhead': d.get('overhead'),
                      'seed_from': d.get('seed_from'),
                      'improved_from': (d.get('improvement') or {}).get('from')
                      if d.get('answer_from') == 'window-search' else None,
                      # the LP's own value (lp_bound); lower_bound may be the boundary bound
                      'lp': (d['lp_bound'] if 'lp_bound' in d else d['lower_bound']
                             if d.get('lower_bound_from', 'lp') == 'lp' else None),
                      'compute': d['compute'], 'seconds': d['solve_seconds'],
                      'killed': d.get('killed_at_limit')}))
except Exception:
    import re
    err = open(sys.argv[3]).read().strip().splitlines()
    m = re.search(r'would need about ([0-9.]+ GB)', err[-1] if err else '')
    why = ('the program would need ' + m.group(1) + ', over the 8 GB cap') if m else (err[-1][-90:] if err else '')
    print(json.dumps({'ratio': float(r), 'status': 'refused' if m else 'error', 'why': why}))
" "$r" "$db.op.json" "$db.op.err" >> "$db.op"
    fi
  done
  python3 - "$tr" "$db" "$pols" "$limit" "$oplimit" <<'PY'
import sqlite3, sys
trace, db, pols, limit, oplimit = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4], sys.argv[5]
c = sqlite3.connect(db)
bounds = {}
for line in open(db + ".bounds"):
    f = line.split()
    bounds[round(float(f[0]), 6)] = f[1:]
runs = {}
for pol, ratio, status, ov, params in c.execute(
        "SELECT policy, ratio, status, overhead, params FROM runs"):
    runs[(pol, round(ratio, 6))] = (status, ov, params)
sols = {}
for coarsen, budget, status, obj, lb, solve_s, nodes, comp in c.execute(
        "SELECT coarsen, budget, status, objective, lower_bound, solve_s, nodes, compute FROM solutions"):
    sols[(coarsen, budget)] = (status, obj, lb, solve_s, nodes, comp)
budgets = dict(c.execute("SELECT round(ratio, 6), budget FROM runs"))
import json
op = {}
for line in open(db + ".op"):
    d = json.loads(line)
    op[round(d["ratio"], 6)] = d
opcols = bool(op)
print(f"\n{trace.split('/')[-1]} (checkmate: --coarsen auto, --time-limit {limit}"
      + (f"; op-level MILP --time-limit {oplimit}" if opcols else "") + ")\n")
print("| budget | " + " | ".join(pols) + " | checkmate (program: status) | its solve s "
      "| op-level bound (outputs, boundary) | best heuristic | its gap to the bound |"
      + (" op-level MILP (outputs, seeded) | its s | its gap to the best bound |" if opcols else ""))
print("|" + "---|" * (len(pols) + 6 + (3 if opcols else 0)))
for r in sorted(budgets):
    cells, best = [], None
    for p in pols:
        st, ov, _ = runs.get((p, r), ("-", None, ""))
        cells.append(f"{ov:.4f}" if st == "ok" else st)
        if st == "ok" and (best is None or ov < best[1]):
            best = (p, ov)
    st, ov, params = runs.get(("checkmate", r), ("-", None, ""))
    prog = params.split(",")[0].split("=")[-1] if params else "-"
    sol = sols.get((prog, budgets[r]))
    ck = f"{prog}: {sol[0] if sol else '-'}"
    if st == "ok":
        ck += f", {ov:.4f}" + ("" if sol and sol[0] == "optimal" else "*")
    solve = f"{sol[3]:.1f}" if sol else "-"
    b = bounds.get(r, ["-"])
    bound = float(b[1]) if len(b) > 1 and b[0] == "optimal" and b[1] else None
    bcell = f"{bound:.4f} ({float(b[2]):.1f} s)" if bound else b[0]
    gap = f"{best[1] / bound - 1:+.1%}" if best and bound else ""
    row = (f"| {r:g} | " + " | ".join(cells) + f" | {ck} | {solve} | {bcell} | "
           f"{best[0] if best else '-'} | {gap} |")
    if opcols:
        d = op.get(r, {"status": "-"})
        if d["status"] in ("feasible", "optimal"):
            lp = d["lp"] / d["compute"] if d.get("lp") else None
            lb = max(x for x in (lp or 0, bound or 0))
            src = (f"window search from {d['improved_from']}" if d.get("improved_from")
                   else f"seed {d['seed_from']}")
            cell = (f"{d['status']}, {d['overhead']:.4f} ({src}"
                    + (", LP " + f"{lp:.4f}" if lp else ", no LP in time") + ")")
            row += f" {cell} | {d['seconds']:.0f} | " + (f"{d['overhead'] / lb - 1:+.1%}" if lb else "") + " |"
        else:
            row += f" {d['status']}{': ' + d['why'] if d.get('why') else ''} | - | |"
    print(row)
PY
done
