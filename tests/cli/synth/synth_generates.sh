#!/usr/bin/env bash
# 'gpumemsim synth' writes traces that info reads back with the totals it printed, is
# deterministic per seed, honours --vary-input, and replays under 'gpumemsim sim'.
. "$(dirname "$0")/common.sh"
G=$GMS_BIN

# every model, small: the printed event count equals what info reads back
gen() { local out=$1; shift; "$G" synth "$@" -o "$T/$out" >"$T/$out.txt"; }
gen mlp.gmt --model mlp --layers 3 --hidden 64 --batch 16
gen resnet.gmt --model resnet --layers 10 --hidden 8 --image 64x64 --batch 8 --classes 10
gen transformer.gmt --model transformer --layers 2 --hidden 32 --heads 4 --vocab 100 --seq 16 --batch 2
gen unet.gmt --model unet --layers 2 --hidden 4 --image 16x16 --batch 2
for m in mlp resnet transformer unet; do
  f=$T/$m.gmt
  [ -s "$f" ] || fail "$m: no output"
  printed=$(sed -E 's/.* ([0-9]+) events.*/\1/' "$f.txt")
  read_back=$("$G" info "$f" --json | jq '.events')
  [ "$printed" = "$read_back" ] || fail "$m: printed $printed events, info reads $read_back"
  [ "$(meta "$f" model)" = "$m" ] || fail "$m: model metadata is $(meta "$f" model)"
  [ "$(meta "$f" synth.events)" = "$read_back" ] || fail "$m: synth.events metadata is wrong"
  # the header's total duration is the baseline compute the simulator measures
  bc=$("$G" info "$f" --json | jq '.baseline_compute')
  [ "$(meta "$f" synth.total_dur_ns)" = "$bc" ] || fail "$m: synth.total_dur_ns != baseline compute $bc"
done

# the mlp's CONSTANT bytes are the analytic parameter count x 4 bytes x 2 (weights + momentum)
params=$(( 2 * (64 * 64 + 64) + (64 * 10 + 10) ))
cb=$("$G" info "$T/mlp.gmt" --json | jq '.constant_bytes')
[ "$cb" = $(( params * 4 * 2 )) ] || fail "mlp constant bytes $cb != $(( params * 8 ))"

# determinism: same arguments and seed -> identical bytes; another seed -> another trace
args=(--model transformer --layers 1 --hidden 16 --heads 2 --vocab 50 --batch 2 --iterations 6 --vary-input 4:40)
"$G" synth -q "${args[@]}" --seed 5 -o "$T/a.gmt"
"$G" synth -q "${args[@]}" --seed 5 -o "$T/b.gmt"
"$G" synth -q "${args[@]}" --seed 6 -o "$T/c.gmt"
cmp -s "$T/a.gmt" "$T/b.gmt" || fail "same seed gave different files"
! cmp -s "$T/a.gmt" "$T/c.gmt" || fail "different seeds gave identical files"

# --vary-input: six iterations, each annotated with batch x seq, seq within [4, 40]
"$G" convert "$T/a.gmt" --to dtr-log -o "$T/a.log" -q
vals=$(jq -r 'select(.INSTRUCTION=="ANNOTATE" and .ANNOTATION=="iteration") | .VALUE' "$T/a.log")
[ "$(echo "$vals" | wc -l)" -eq 6 ] || fail "expected 6 iteration annotations, got: $vals"
for v in $vals; do
  [ $((v % 2)) -eq 0 ] && [ "$v" -ge 8 ] && [ "$v" -le 80 ] || fail "iteration value $v is not 2 x [4, 40]"
done
[ "$(echo "$vals" | sort -u | wc -l)" -gt 1 ] || fail "every iteration drew the same size: $vals"

# a replay: no budget is the baseline (overhead ~1); 80% of it costs recomputation
"$G" sim "$T/resnet.gmt" --json >"$T/free.json"
[ "$(jq -r .status "$T/free.json")" = ok ] || fail "unbudgeted replay: $(cat "$T/free.json")"
"$G" sim "$T/resnet.gmt" --budget 0.8 --policy dtr --json >"$T/tight.json"
[ "$(jq -r .status "$T/tight.json")" = ok ] || fail "budget 0.8 replay: $(cat "$T/tight.json")"
jq -e '.overhead > 1.0 and .remats > 0' "$T/tight.json" >/dev/null ||
  fail "budget 0.8 should rematerialize: $(cat "$T/tight.json")"
echo "ok"
