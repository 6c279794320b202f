# shellcheck shell=bash disable=SC2154 # bin and out: the sourcing script sets them
# Sourced by scripts/bench-optimal.sh and scripts/bench-moccasin.sh: the graphs both solve,
# made into $out once and kept there between runs. tr28 and tr148: synthetic transformers
# coarsened by layers (65 and 305 nodes); tr24ops: one at op level (2,091 nodes).
[ -f "$out/tr28.json" ] || {
  "$bin" synth --model transformer --layers 28 --hidden 256 --heads 4 --seq 128 --vocab 1000 -q -o "$out/tr28.gmt"
  "$bin" graph "$out/tr28.gmt" --coarsen layers -o "$out/tr28.json" 2>/dev/null; }
[ -f "$out/tr148.json" ] || {
  "$bin" synth --model transformer --layers 148 --hidden 128 --heads 2 --seq 64 --vocab 500 -q -o "$out/tr148.gmt"
  "$bin" graph "$out/tr148.gmt" --coarsen layers -o "$out/tr148.json" 2>/dev/null; }
[ -f "$out/tr24ops.json" ] || {
  "$bin" synth --model transformer --layers 24 --hidden 128 --heads 2 --seq 64 --vocab 500 -q -o "$out/tr24.gmt"
  "$bin" graph "$out/tr24.gmt" -o "$out/tr24ops.json" 2>/dev/null; }
