#!/usr/bin/env bash
# The exactness check of engine speed work: the same runs with an old and a new build must
# give identical outputs. Two checks, each diffed old against new:
#  1. event_hash (tests/bench/event_hash.c): every sim_event of a run hashed, with the
#     result's figures, for GMS_EXACT_POLICIES x GMS_EXACT_BUDGETS on every ET of ../shared
#     (converted by the new binary), the five DTR logs, a 3000-layer chain, a 20-iteration
#     GPT synth and its --weight-update mutate variant;
#  2. `sim --json` (wall time aside) for the region policies and the scanning ones (lru, size,
#     dtr-local; GMS_EXACT_JSON_POLICIES) at no budget, 1.0, 1.5 and 0.9:
#     runs without an observer, which may skip the regions' upkeep (sim_run.c, no_upkeep).
# Usage: GMS_BUILD=build-rel GMS_OLD_BUILD=build-old scripts/bench/exact.sh
#   (each a build folder holding cli/gpumemsim and tests/bench/event_hash). Prints the run
#   count and "identical", or the diff and exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
new="${GMS_BUILD:?set GMS_BUILD (the new build folder)}"
old="${GMS_OLD_BUILD:?set GMS_OLD_BUILD (the old build folder)}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
pols="${GMS_EXACT_POLICIES:-dtr,dtr-eq,dtr-local,lru,size,msps,random,dtr-proto,dtr-proto-all,swap-lru,hybrid,capuchin,autoswap}"
buds="${GMS_EXACT_BUDGETS:-0.5,0.7,0.85,0.9,0.95}"
for b in "$new" "$old"; do
  for f in cli/gpumemsim tests/bench/event_hash; do
    [ -x "$b/$f" ] || { echo "exact.sh: $b/$f is missing" >&2; exit 1; }
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$new/cli/gpumemsim"
traces=()
for f in "$shared"/traces/pytorch-et/*_et.json.gz; do
  n=$(basename "$f" .json.gz)
  "$bin" convert "$f" -o "$tmp/$n.gmt" >/dev/null 2>&1 && traces+=("$tmp/$n.gmt")
done
traces+=("$shared"/traces/dtr-iclr21/*.log)
"$bin" synth --model transformer --iterations 20 -o "$tmp/gpt20.gmt" >/dev/null
"$bin" synth --model transformer --iterations 20 --weight-update mutate \
  -o "$tmp/gpt20m.gmt" >/dev/null
traces+=("$tmp/gpt20.gmt" "$tmp/gpt20m.gmt")

for side in old new; do
  b=$old
  [ "$side" = new ] && b=$new
  out="$tmp/$side.hash"
  : >"$out"
  for t in "${traces[@]}"; do
    echo "== $(basename "$t")" >>"$out"
    "$b/tests/bench/event_hash" "$t" "$pols" "$buds" 2 >>"$out"
  done
  echo "== chain 3000" >>"$out"
  "$b/tests/bench/event_hash" --chain 3000 "$pols" "$buds" 2 >>"$out"
  js="$tmp/$side.json"
  : >"$js"
  for t in "${traces[@]}"; do
    for p in ${GMS_EXACT_JSON_POLICIES:-dtr dtr-eq msps hybrid capuchin dtr-proto-all lru size dtr-local}; do
      for bud in none 1.0 1.5 0.9; do
        a=()
        [ "$bud" = none ] || a=(--budget "$bud")
        { "$b/cli/gpumemsim" sim "$t" --policy "$p" "${a[@]}" --json 2>/dev/null || true; } |
          sed 's/"wall_s": [0-9.e-]*//; s/"trace": "[^"]*"//' >>"$js"
        echo >>"$js"
      done
    done
  done
done
runs=$(grep -c ' events ' "$tmp/new.hash" || true)
jruns=$(grep -c '"status"' "$tmp/new.json" || true)
if diff "$tmp/old.hash" "$tmp/new.hash" && diff "$tmp/old.json" "$tmp/new.json"; then
  echo "exact.sh: $runs event_hash runs and $jruns sim --json runs identical"
else
  echo "exact.sh: outputs differ" >&2
  exit 1
fi
