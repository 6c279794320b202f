#!/usr/bin/env bash
# A C plugin (--policy PATH.so) that computes dtr-local through a plain score function, and one
# through a choose() over the pool's columns, give exactly the built-in dtr-local's results on the committed samples (every field of sim --json
# but the policy name and wall time), and sweeps beside dtr into a store whose run key names
# the plugin by NAME@HASH of its .so, so a rebuilt plugin is run again, not reused.
. "$(dirname "$0")/common.sh"
G=$GMS_BIN
P=$GMS_PLUGIN_DTR_LOCAL
S=$GMS_SOURCE_DIR/traces/samples
# peak_at too: a plugin's run is followed in its child process, its peak the built-in's
strip() { jq -S 'del(.wall_s, .policy)'; }
n=0
for t in unet-small resnet-small transformer-small mlp-small; do
  for b in 0.3 0.5 0.7 0.9; do
    "$G" sim "$S/$t.gmt" --policy dtr-local --budget $b --json | strip >"$T/builtin.json"
    "$G" sim "$S/$t.gmt" --policy "$P" --budget $b --json >"$T/plugin.raw"
    [ "$(jq -r .policy "$T/plugin.raw")" = test-dtr-local ] || fail "$t $b: policy name in JSON"
    [ "$(jq -c .peak_at "$T/plugin.raw")" != null ] || fail "$t $b: a plugin run's peak not followed"
    strip <"$T/plugin.raw" >"$T/plugin.json"
    diff "$T/builtin.json" "$T/plugin.json" || fail "$t at $b: plugin differs from dtr-local"
    # the same formula as a choose() over the pool's columns (the fast way, docs/plugins.md)
    "$G" sim "$S/$t.gmt" --policy "$GMS_PLUGIN_DTR_LOCAL_COLUMNS" --budget $b --json | strip \
      >"$T/columns.json"
    diff "$T/builtin.json" "$T/columns.json" || fail "$t at $b: columns plugin differs from dtr-local"
    n=$((n + $(jq '.evictions' "$T/builtin.json")))
  done
done
[ "$n" -gt 0 ] || fail "no evictions at all: the comparison proves nothing"

# plot timeline takes a plugin too (if gnuplot is missing it must say so, not reject the policy)
if "$G" plot timeline "$S/unet-small.gmt" --policy "$P" --budget 0.5 -o "$T/t.svg" 2>"$T/plot.err"; then
  grep -q '<svg' "$T/t.svg" || fail "plot timeline with a plugin wrote no SVG"
else
  grep -qi gnuplot "$T/plot.err" || fail "plot timeline with a plugin: $(cat "$T/plot.err")"
fi

# fit finds the same budgets for the plugin as for dtr-local
"$G" fit "$S/unet-small.gmt" --policies "dtr-local,$P" --json --quiet >"$T/fit.json" \
  || fail "fit with a plugin"
[ "$(jq -r '.results[1].policy' "$T/fit.json")" != dtr-local ] || fail "fit: plugin not named"
jq -e '.results[0].found and ([.results[] | del(.policy)] | .[0] == .[1])' "$T/fit.json" \
  >/dev/null || fail "fit: plugin and dtr-local differ: $(cat "$T/fit.json")"

# sim --perfetto takes a plugin too (run in process: the trace must see the run), same events
"$G" sim "$S/unet-small.gmt" --policy dtr-local --budget 0.5 --perfetto "$T/b.json" >/dev/null
"$G" sim "$S/unet-small.gmt" --policy "$P" --budget 0.5 --perfetto "$T/p.json" >/dev/null ||
  fail "sim --perfetto with a plugin failed"
[ "$(jq -c '[.traceEvents[] | select(.ph != "M")]' "$T/b.json")" = \
  "$(jq -c '[.traceEvents[] | select(.ph != "M")]' "$T/p.json")" ] ||
  fail "sim --perfetto: the plugin's trace differs from dtr-local's"

# sweep the plugin beside dtr and dtr-local
cp "$P" "$T/mine.so"
"$G" sweep "$S/unet-small.gmt" --policies "dtr,dtr-local,$T/mine.so" --budgets 0.4,0.6 \
  --db "$T/r.db" -j 2 --quiet
"$G" db export "$T/r.db" --json -o "$T/runs.json"
ids=$(jq -r '[.[] | .policy] | unique | join(",")' "$T/runs.json")
case $ids in
  *test-dtr-local@*) ;;
  *) fail "store policies '$ids' lack test-dtr-local@HASH" ;;
esac
[ "$(jq '[.[] | select(.policy | startswith("test-dtr-local@"))] | length' "$T/runs.json")" = 2 ] ||
  fail "expected 2 plugin runs in the store"
for b in 0.4 0.6; do
  a=$(jq -c --argjson b $b '[.[] | select(.policy == "dtr-local" and .ratio == $b)
        | .overhead, .evictions, .remats][]' "$T/runs.json" | tr '\n' ' ')
  p=$(jq -c --argjson b $b '[.[] | select((.policy | startswith("test-dtr-local@")) and
        .ratio == $b) | .overhead, .evictions, .remats][]' "$T/runs.json" | tr '\n' ' ')
  [ -n "$a" ] && [ "$a" = "$p" ] || fail "sweep at $b: plugin '$p' != dtr-local '$a'"
done
# the same .so again: nothing new to run; a changed .so (other bytes): a new key, run again
"$G" sweep "$S/unet-small.gmt" --policies "$T/mine.so" --budgets 0.4,0.6 --db "$T/r.db" --quiet
"$G" db export "$T/r.db" --json -o "$T/runs2.json"
[ "$(jq length "$T/runs2.json")" = "$(jq length "$T/runs.json")" ] || fail "unchanged plugin re-ran"
printf '\0' >>"$T/mine.so"
"$G" sweep "$S/unet-small.gmt" --policies "$T/mine.so" --budgets 0.4,0.6 --db "$T/r.db" --quiet
"$G" db export "$T/r.db" --json -o "$T/runs3.json"
[ "$(jq '[.[] | .policy | select(startswith("test-dtr-local@"))] | unique | length' "$T/runs3.json")" = 2 ] ||
  fail "a changed plugin must get a new run key"
echo ok
