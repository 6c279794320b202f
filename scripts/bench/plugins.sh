#!/usr/bin/env bash
# Policy plugins (docs/plugins.md, "Speed" and "Python"): on each DTR log at budget 0.25, the
# best of 7 runs of built-in dtr-local, the same formula as a C plugin's score function (the
# test plugin tests/cli/plugins/dtr_local_plugin.c) in process and in the child process that
# sim and sweep run plugins in (the difference is the fork's cost), and as a Python score
# through the gpumemsim module (when it is built). GMS_BUILD as scripts/bench.sh sets it.
set -euo pipefail
: "${GMS_BUILD:?}"
logs="${GMS_SHARED_DIR:-$PWD/../shared}/traces/dtr-iclr21"
plugin=$GMS_BUILD/tests/cli/plugins/gms_plugin_dtr_local.so
[ -d "$logs" ] || { echo "plugins: needs the DTR logs in $logs"; exit 0; }
for log in "$logs"/*.log; do
  echo "-- $(basename "$log" | cut -d- -f1)"
  "$GMS_BUILD/tests/bench/plugin_bench" "$log" 0.25 7 dtr-local "$plugin"
  if [ -d "$GMS_BUILD/python" ] && ls "$GMS_BUILD"/python/gpumemsim*.so >/dev/null 2>&1; then
    PYTHONPATH=$GMS_BUILD/python python3 - "$log" <<'PY'
import sys, gpumemsim
t = gpumemsim.load(sys.argv[1])
calls = [0]
def counting(s):
    calls[0] += 1
    return s.compute / (s.size * s.staleness)
gpumemsim.sim(t, budget=0.25, score=counting)
def best(**kw):
    runs = [gpumemsim.sim(t, budget=0.25, **kw) for _ in range(7)]
    return min(r["wall_s"] for r in runs), runs[0]
b, rb = best(policy="dtr-local")
p, rp = best(score=lambda s: s.compute / (s.size * s.staleness))
assert {k: v for k, v in rb.items() if k not in ("wall_s", "policy")} == \
       {k: v for k, v in rp.items() if k not in ("wall_s", "policy")}, "results differ"
print(f"python score              {rp['status']:12} evictions {rp['evictions']:6}  "
      f"in process {p * 1e3:8.3f} ms  ({p / b:.0f}x the module's built-in "
      f"{b * 1e3:.3f} ms; {calls[0]} score calls, {p / calls[0] * 1e9:.0f} ns each)")
PY
  fi
done
