#!/usr/bin/env bash
# The demo's summary of a result store: per trace and policy, the smallest budget ratio at
# which every run is ok, and the mean overhead at ratio R (or how the runs there ended).
#   scripts/demo-summary.sh DB [R]      R defaults to 0.5
# Uses $GMS_BIN when set, else build/cli/gpumemsim.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gms=${GMS_BIN:-$root/build/cli/gpumemsim}
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: scripts/demo-summary.sh DB [RATIO]" >&2; exit 2; }
at=${2:-0.5}
# Summary from the CSV export: per trace and policy, the smallest ratio at which every run
# (every seed) is ok, and the mean overhead at ratio `at`, or how it ended when a run did not
# finish there: "oom" (the budget cannot hold what the step needs) or "remat-limit" (it
# would cost more than the limit's extra compute).
"$gms" db export "$1" --csv | awk -F, -v at="$at" '
  NR == 1 { next }
  {
    key = $1 SUBSEP $3
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    r = $5 + 0
    runs[key, r]++
    if ($9 == "ok") { ok[key, r]++; sum[key, r] += $10 }
    else if ($9 == "oom") oom[key, r]++
    else lim[key, r]++
    ratios[key] = ratios[key] " " r
  }
  BEGIN { at += 0 }
  END {
    printf "\n%-28s %-13s %18s %16s\n", "TRACE", "POLICY", "SMALLEST OK BUDGET", "OVERHEAD AT " at
    for (i = 1; i <= n; i++) {
      key = order[i]; split(key, kp, SUBSEP)
      best = ""
      m = split(ratios[key], rs, " ")
      for (j = 1; j <= m; j++) {
        r = rs[j] + 0
        if (runs[key, r] == ok[key, r] && (best == "" || r < best)) best = r
      }
      cell = (runs[key, at] == 0) ? "-" : (ok[key, at] == runs[key, at]) ? \
           sprintf("%.3fx", sum[key, at] / ok[key, at]) : \
           (oom[key, at] >= lim[key, at]) ? "oom" : "remat-limit"
      name = kp[1]; if (length(name) > 28) name = substr(name, 1, 25) "..."
      printf "%-28s %-13s %18s %16s\n", name, kp[2], best == "" ? "none" : sprintf("%.1f", best), cell
    }
  }'

