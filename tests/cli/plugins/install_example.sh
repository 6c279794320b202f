#!/usr/bin/env bash
# From an empty folder to a swept plugin with the installed package only, in the commands
# docs/plugins.md shows: install gpumemsim into a temporary prefix, copy the example plugin,
# build it with its Makefile (pkg-config), sweep it beside dtr and list the runs. The example
# computes dtr-local's score, so its runs must equal dtr-local's. TRACE: the committed sample,
# or the shared DTR log named in $1.
. "$(dirname "$0")/common.sh"
: "${GMS_BUILD_DIR:?}" "${GMS_CMAKE:?}"
TRACE=${1:-$GMS_SOURCE_DIR/traces/samples/unet-small.gmt}
[ -r "$TRACE" ] || fail "missing trace $TRACE"
"$GMS_CMAKE" --install "$GMS_BUILD_DIR" --prefix "$T/prefix" >"$T/install.log"
for f in bin/gpumemsim include/gpumemsim/policy.h include/gpumemsim/gms_error.h; do
  [ -e "$T/prefix/$f" ] || fail "not installed: $f"
done
pc=$(find "$T/prefix" -name gpumemsim.pc)
[ -n "$pc" ] || fail "no gpumemsim.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc") PATH="$T/prefix/bin:$PATH"
# the installed headers alone compile a plugin: no path into the source tree
inc=$(pkg-config --variable=includedir gpumemsim)
[ "$(cd "$inc" && pwd -P)" = "$(cd "$T/prefix/include/gpumemsim" && pwd -P)" ] ||
  fail "pkg-config includedir $inc is not the installed prefix's"

mkdir "$T/work" && cd "$T/work"
# --- the commands of docs/plugins.md ---
cp "$(pkg-config --variable=datadir gpumemsim)"/examples/policy-plugin/* .
make
gpumemsim sweep "$TRACE" --policies dtr,dtr-local,./my_policy.so --budgets 0.4,0.6 --quiet
gpumemsim db runs results.db >runs.txt
# ---
[ -x my_policy.so ] || [ -f my_policy.so ] || fail "make built no my_policy.so"
grep -q 'my-policy@' runs.txt || fail "the plugin's runs are not listed: $(cat runs.txt)"
gpumemsim db export results.db --json -o runs.json
for b in 0.4 0.6; do
  a=$(jq -c --argjson b $b '[.[] | select(.policy == "dtr-local" and .ratio == $b)
        | .status, .overhead, .evictions, .remats][]' runs.json | tr '\n' ' ')
  p=$(jq -c --argjson b $b '[.[] | select((.policy | startswith("my-policy@")) and
        .ratio == $b) | .status, .overhead, .evictions, .remats][]' runs.json | tr '\n' ' ')
  [ -n "$a" ] && [ "$a" = "$p" ] || fail "at $b: example plugin '$p' != dtr-local '$a'"
done
[ "$(jq '[.[] | select(.policy == "dtr")] | length' runs.json)" = 2 ] || fail "dtr runs missing"
# the fast variant (a choose() over the columns) built by the same make: dtr-local's results
[ -f my_fast_policy.so ] || fail "make built no my_fast_policy.so"
# peak_at too: a plugin's run is followed in its child process, its peak the built-in's
strip() { jq -S 'del(.wall_s, .policy)'; }
for b in 0.4 0.6; do
  gpumemsim sim "$TRACE" --policy dtr-local --budget $b --json | strip >a.json
  gpumemsim sim "$TRACE" --policy ./my_fast_policy.so --budget $b --json | strip >f.json
  diff a.json f.json || fail "at $b: my_fast_policy.so differs from dtr-local"
done
echo ok
