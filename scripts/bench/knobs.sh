#!/usr/bin/env bash
# The knob replicas (issue 29, docs/planners.md): speed and the comparison.
#  1. speed: rotor's planning time on a 200-layer chain (synth mlp, 201 layers) with 500
#     slots; ac-budget's planning time per budget on the GPT-2 Large ET; the default replay
#     and a ckpt-all run of the same traces with GMS_OLD_BIN (a Release build of main at
#     dbf7ebc) and GMS_BIN side by side, best of 3 each, interleaved;
#  2. the comparison: scripts/knobs-table.sh (the synth transformer, the GPT-2 Large and
#     ResNet-50 ETs, the five DTR logs; knobs 0.3 .. 0.9; every policy at the peak the knob
#     reaches; the optimum of the layer graph with a time limit), and a store for
#     'plot overhead' with ac-budget at four knobs. GMS_KNOBS_DB (default knobs.db) keeps the
#     store; GMS_KNOBS_DOC=docs/planners.md rewrites the table there.
# GMS_BIN as scripts/bench.sh sets it; GMS_SHARED_DIR for the real traces; GMS_KNOBS_PART =
# speed, compare or all (default).
set -euo pipefail
: "${GMS_BIN:?}"
shared=${GMS_SHARED_DIR:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
best3() { # best wall time (s) of 3 runs of "$@"
  local b=999999 t
  for _ in 1 2 3; do
    /usr/bin/time -f %e -o "$tmp/time" "$@" >/dev/null 2>&1
    t=$(tail -1 "$tmp/time")
    b=$(echo "$b $t" | awk '{ print ($2 < $1) ? $2 : $1 }')
  done
  echo "$b"
}
median3() { sort -g | awk '{ v[NR] = $1 } END { print v[2] }'; }
gpt2=$shared/traces/pytorch-et/hf_gpt2_et.json.gz

part=${GMS_KNOBS_PART:-all}
if [ "$part" != compare ]; then
echo "-- speed"
"$GMS_BIN" synth --model mlp --layers 200 --hidden 256 -o "$tmp/mlp200.gmt" -q
# planning wall time (the engine's plan_s) and the whole run's CPU time (planning is most of
# it): on a loaded machine the wall time includes waiting for a core
for i in 1 2 3; do
  /usr/bin/time -f %U -o "$tmp/cpu" "$GMS_BIN" sim "$tmp/mlp200.gmt" --policy rotor --budget 0.9 \
    --json | jq -r --arg cpu "$(cat "$tmp/cpu" 2>/dev/null || echo 0)" '.planner.plan_s' >>"$tmp/plan"
  tail -1 "$tmp/cpu" >>"$tmp/cpus"
done
echo "rotor, 201-layer chain, 500 slots: planning $(median3 <"$tmp/plan") s wall, run $(median3 <"$tmp/cpus") s CPU (medians of 3)"
for b in 0.3 0.5 0.7 0.9; do
  for i in 1 2 3; do
    "$GMS_BIN" sim "$gpt2" --policy ac-budget --policy-args budget=$b --json | jq '.planner.plan_s'
  done | median3 | awk -v b=$b '{ printf "ac-budget, GPT-2 ET, budget %s: planning %.3f s (median of 3)\n", b, $1 }'
done
if [ -n "${GMS_OLD_BIN:-}" ]; then
  "$GMS_BIN" synth --model transformer --layers 6 -o "$tmp/tf.gmt" -q
  echo "| run | old (s) | new (s) | new / old |"
  echo "|---|---:|---:|---:|"
  for spec in "tf.gmt|" "tf.gmt|--policy ckpt-all --budget 0.8" "gpt2|" "gpt2|--policy ckpt-all"; do
    t=${spec%%|*}; args=${spec#*|}
    f=$([ "$t" = gpt2 ] && echo "$gpt2" || echo "$tmp/$t")
    # shellcheck disable=SC2086
    o=$(best3 "$GMS_OLD_BIN" sim "$f" $args --json); n=$(best3 "$GMS_BIN" sim "$f" $args --json)
    echo "| $t ${args:-(default replay)} | $o | $n | $(echo "$o $n" | awk '{ printf "%.2f", $2 / $1 }') |"
  done
fi

fi
[ "$part" = speed ] && exit 0
echo "-- comparison (scripts/knobs-table.sh: every trace, knobs 0.3 .. 0.9, the optimum with"
echo "   a ${GMS_KNOBS_OPT_LIMIT:-20} s limit); GMS_KNOBS_DOC=docs/planners.md writes it there"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${GMS_KNOBS_DOC:-}" ]; then
  GMS_SHARED_DIR=$shared "$here/knobs-table.sh" --write "$GMS_KNOBS_DOC"
else
  GMS_SHARED_DIR=$shared "$here/knobs-table.sh"
fi
"$GMS_BIN" synth --model transformer --layers 6 -o "$tmp/transformer.gmt" -q
db=${GMS_KNOBS_DB:-knobs.db}
# the store for the chart: ac-budget at four knobs (one line each) across the memory
# budgets, beside the other policies ('plot overhead' draws one line per parameter set)
for k in 0.3 0.5 0.7 0.9; do
  "$GMS_BIN" sweep "$tmp/transformer.gmt" --db "$db" --policies ac-budget --budgets 0.3:0.9:0.1 \
    --policy-args budget=$k --quiet -j 1 >/dev/null
done
"$GMS_BIN" sweep "$tmp/transformer.gmt" --db "$db" --policies sac,rotor,ckpt-sqrt,mimose,dtr \
  --budgets 0.3:0.9:0.1 --quiet -j 1 >/dev/null
echo "store: $db (gpumemsim plot overhead $db -o knobs.png)"
