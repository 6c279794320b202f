#!/usr/bin/env bash
# The dtr-local C plugins (a score function; a choose() over the columns) give exactly the built-in dtr-local's results on a shared DTR log.
. "$(dirname "$0")/common.sh"
L=$GMS_SHARED_DIR/traces/dtr-iclr21/unet-6-8000000000.0-2020-10-1-10-57-18-default.log
[ -r "$L" ] || fail "missing shared log $L"
# peak_at too: a plugin's run is followed in its child process, its peak the built-in's
strip() { jq -S 'del(.wall_s, .policy)'; }
for b in 0.4 0.6 0.8; do
  "$GMS_BIN" sim "$L" --policy dtr-local --budget $b --json | strip >"$T/a.json"
  "$GMS_BIN" sim "$L" --policy "$GMS_PLUGIN_DTR_LOCAL" --budget $b --json | strip >"$T/b.json"
  diff "$T/a.json" "$T/b.json" || fail "unet log at $b: plugin differs from dtr-local"
  "$GMS_BIN" sim "$L" --policy "$GMS_PLUGIN_DTR_LOCAL_COLUMNS" --budget $b --json | strip >"$T/c.json"
  diff "$T/a.json" "$T/c.json" || fail "unet log at $b: columns plugin differs from dtr-local"
  [ "$(jq .evictions "$T/a.json")" -gt 0 ] || fail "no evictions at $b"
done
echo ok
