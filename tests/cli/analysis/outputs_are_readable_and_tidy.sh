#!/usr/bin/env bash
# Files colleagues can read and no litter (issue 9): outputs written through temporary files get the
# mode the umask gives; an interrupted synth leaves no *.tmp-* file; read-only commands leave no
# -wal/-shm files next to a store; and the everyday consistency around them: --remat-limit 0 is
# no limit in sweep as in sim, options a command lacks are refused. On the project's samples.
source "$(dirname "$0")/lib.sh"
T="$GMS_SOURCE_DIR/traces/samples/mlp-small.gmt"
umask 022
"$GMS_BIN" sweep "$T" --policies dtr,lru --budgets 0.5,0.8 --db r.db --quiet || fail "sweep"
mode() { stat -c %a "$1"; }
[ "$(mode r.db)" = 644 ] || fail "store mode $(mode r.db)"
"$GMS_BIN" db runs r.db >/dev/null && "$GMS_BIN" db export r.db --csv -o runs.csv &&
  "$GMS_BIN" db export r.db --json -o runs.json || fail "db"
[ ! -e r.db-wal ] && [ ! -e r.db-shm ] || fail "read-only commands left $(ls r.db-*)"
"$GMS_BIN" db merge r.db -o m.db 2>/dev/null || fail "merge"
"$GMS_BIN" convert "$T" --to dtr-log -o t.log || fail "convert"
"$GMS_BIN" synth --model mlp --layers 2 --iterations 1 -o s.gmt || fail "synth"
for f in runs.csv runs.json m.db t.log s.gmt; do
  [ "$(mode "$f")" = 644 ] || fail "$f has mode $(mode "$f"), not what the umask gives (644)"
done
if command -v gnuplot >/dev/null; then
  "$GMS_BIN" plot overhead r.db -o chart.svg 2>/dev/null || fail "plot"
  [ "$(mode chart.svg)" = 644 ] || fail "chart mode $(mode chart.svg)"
fi
[ ! -e r.db-wal ] && [ ! -e r.db-shm ] || fail "plot left $(ls r.db-*)"

# --remat-limit 0 is "no limit" in sweep as in sim: stored as 0, and a run that stops at the
# default limit runs to the end without one
"$GMS_BIN" sweep "$T" --policies lru --budgets 0.3 --db nolimit.db --quiet || fail "sweep"
"$GMS_BIN" sweep "$T" --policies lru --budgets 0.3 --remat-limit 0 --db nolimit.db --quiet ||
  fail "sweep --remat-limit 0"
"$GMS_BIN" db export nolimit.db --csv > nolimit.csv
grep -q ',lru,,0.3,[0-9]*,2,simrd,remat-limit,' nolimit.csv || fail "default limit: $(cat nolimit.csv)"
grep -q ',lru,,0.3,[0-9]*,0,simrd,ok,' nolimit.csv || fail "no limit: $(cat nolimit.csv)"

# one option name for a policy list everywhere: --policy and --policies in sweep, db and plot
"$GMS_BIN" sweep "$T" --policy dtr --budgets 0.5 --db names.db --quiet || fail "sweep --policy"
"$GMS_BIN" db runs names.db --policies dtr | grep -q "^1 runs: " || fail "db runs --policies"

# --sample in sweep and plot timeline, as in sim: sampled runs draw at random, so every policy
# runs once per seed and the key says how it was sampled
"$GMS_BIN" sweep "$T" --policies dtr --budgets 0.5 --sample 8 --seeds 2 --db smp.db --quiet ||
  fail "sweep --sample"
[ "$("$GMS_BIN" db export smp.db --csv | grep -c ',dtr,"seed=[01],sample=8",')" -eq 2 ] ||
  fail "sampled runs: $("$GMS_BIN" db export smp.db --csv)"
want=$("$GMS_BIN" sim "$T" --policy dtr --budget 0.5 --sample 8 --seed 1 --json | jq .evictions)
"$GMS_BIN" db export smp.db --json | jq -e ".[] | select(.params == \"seed=1,sample=8\") |
  .evictions == $want" >/dev/null || fail "the sweep's sampled run differs from sim's"
if command -v gnuplot >/dev/null; then
  # a long trace: the replay before the chart reports its progress
  "$GMS_BIN" synth --model transformer --layers 12 --hidden 512 --heads 8 --vocab 8192 \
    --iterations 300 -o long.gmt >/dev/null || fail "synth"
  "$GMS_BIN" plot timeline long.gmt --policy lru --budget 0.8 --sample 16 -o long.svg \
    2> long.err || fail "plot timeline --sample: $(cat long.err)"
  grep -Eq "^plot timeline: [0-9]+/[0-9]+ ops \([0-9]+%\)" long.err ||
    fail "no progress line: $(cat long.err)"
fi

# options a command does not have are refused, not ignored
out=$("$GMS_BIN" db runs r.db --json 2>&1) && fail "db runs --json was accepted: $out"
grep -q "not an option of db runs" <<<"$out" || fail "db runs --json: $out"
out=$("$GMS_BIN" info "$T" --json --ops 2>&1) && fail "info --json --ops was accepted"
grep -q "use one or the other" <<<"$out" || fail "info --json --ops: $out"
out=$("$GMS_BIN" sweep "$T" --timelines --db tl.db 2>&1) && fail "sweep --timelines was accepted"
grep -q "gpumemsim plot timeline" <<<"$out" || fail "sweep --timelines: $out"
[ ! -e tl.db ] || fail "a refused sweep created its store"

# interrupted writers leave nothing: a big synth killed by SIGINT, SIGTERM and SIGHUP (job
# control on, or the shell would start the background job with SIGINT ignored)
set -m
for sig in INT TERM HUP; do
  "$GMS_BIN" synth --model transformer --layers 12 --hidden 512 --heads 8 --vocab 8192 \
    --iterations 5000 -o big.gmt &
  pid=$!
  # up to 30 s: under ASan on a loaded machine synth takes seconds to open its output
  for _ in $(seq 600); do ls big.gmt.tmp-* >/dev/null 2>&1 && break; sleep 0.05; done
  ls big.gmt.tmp-* >/dev/null 2>&1 || fail "synth wrote no temporary file to interrupt ($sig)"
  kill -"$sig" "$pid"
  rc=0; wait "$pid" 2>/dev/null || rc=$?
  [ "$rc" -gt 128 ] || fail "synth was not stopped by SIG$sig (exit $rc): make it longer"
  [ -z "$(ls ./*.tmp-* 2>/dev/null)" ] || fail "SIG$sig left $(ls ./*.tmp-*)"
  [ ! -e big.gmt ] || fail "an interrupted synth left a trace"
done
echo ok
