#!/usr/bin/env bash
# A plugin whose score never returns (issue 31): its run is killed after --plugin-timeout and
# fails alone, so a sweep finishes every other run; and killing the command that runs it (TERM
# or KILL) leaves no process behind.
. "$(dirname "$0")/common.sh"
G=$GMS_BIN
U=$GMS_SOURCE_DIR/traces/samples/unet-small.gmt
H=$GMS_PLUGIN_BAD_HANG
hung="plugin 'test-bad' \\(.*gms_plugin_bad_hang.so\\) did not finish its run within 1 s and was killed"

# sim and fit: the run fails after the limit, with a message that says what to do
expect_fail 'sim hang' timeout 60 "$G" sim "$U" --policy "$H" --budget 0.5 --plugin-timeout 1
expect_err_matches 'sim hang' "$hung.*--plugin-timeout"
expect_fail 'fit hang' timeout 60 "$G" fit "$U" --policies "$H" --plugin-timeout 1 --quiet
expect_err_matches 'fit hang' "$hung"

# sweep -j 2: both workers meet the plugin; every built-in run is still stored
expect_fail 'sweep hang' timeout 120 "$G" sweep "$U" --policies "$H,dtr,lru,msps" \
  --budgets 0.4,0.5,0.6 --db "$T/h.db" -j 2 --plugin-timeout 1 --quiet
expect_err_matches 'sweep hang' "3 run\\(s\\) of plugin policies failed.*$hung"
"$G" db export "$T/h.db" --json -o "$T/h.json"
[ "$(jq -r '[.[] | .policy] | sort | join(",")' "$T/h.json")" = \
  "dtr,dtr,dtr,lru,lru,lru,msps,msps,msps" ] ||
  fail "sweep with a hanging plugin recorded $(jq -c '[.[] | .policy]' "$T/h.json")"

# bad limits are refused naming the option and the range
for v in -1 abc 1e300 5h; do
  expect_fail "--plugin-timeout $v" "$G" sweep "$U" --policies dtr --plugin-timeout "$v" \
    --db "$T/bad.db" --quiet
  expect_err_matches "--plugin-timeout $v" "^gpumemsim sweep: --plugin-timeout '$v': give seconds from 0"
done

# kill the command while its plugin child spins (default limit): nothing may be left
children() { { pgrep -P "$1" || true; } | tr '\n' ' '; }
for sig in TERM KILL; do
  for cmd in "sweep $U --policies $H --budgets 0.4,0.5 -j 2 --db $T/k$sig.db --quiet" \
             "sim $U --policy $H --budget 0.5"; do
    # shellcheck disable=SC2086
    "$G" $cmd >/dev/null 2>&1 &
    pid=$!
    kids=""
    for _ in $(seq 200); do # wait for the plugin's child process (up to 20 s)
      kids=$(children "$pid")
      [ -n "$kids" ] && break
      sleep 0.1
    done
    [ -n "$kids" ] || { kill -KILL "$pid"; fail "$cmd: no plugin child process appeared"; }
    sleep 0.5 # let it reach the loop
    kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null || true
    for _ in $(seq 50); do # PR_SET_PDEATHSIG is immediate; allow 5 s for a loaded machine
      left=""
      for k in $kids; do
        if kill -0 "$k" 2>/dev/null; then left="$left $k"; fi
      done
      [ -z "$left" ] && break
      sleep 0.1
    done
    if [ -n "$left" ]; then
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      fail "kill -$sig of '$cmd' left its plugin process(es)$left running"
    fi
  done
done
echo ok
