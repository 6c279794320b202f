#!/usr/bin/env bash
# Bad arguments to 'gpumemsim synth' fail with "gpumemsim synth: ..." naming the problem, a
# non-zero exit, and no output file (nor temporary file) left behind.
. "$(dirname "$0")/common.sh"
mkdir -p "$T/out"
O=$T/out/x.gmt

# case NAME REGEX ARGS...: synth ARGS must fail, stderr must match REGEX, $T/out stays empty
case_() {
  local name=$1 regex=$2; shift 2
  expect_fail "$name" "$GMS_BIN" synth "$@"
  expect_err_matches "$name" "^gpumemsim synth: .*$regex"
  [ -z "$(ls -A "$T/out")" ] || fail "$name: left files behind: $(ls -A "$T/out")"
}

case_ unknown-model "unknown model 'vgg'" --model vgg -o "$O"
case_ missing-model "--model is required" -o "$O"
case_ missing-output "-o OUT.gmt is required" --model mlp
case_ zero-image-height "--image '0x5'" --model resnet --image 0x5 -o "$O"
case_ image-not-hxw "--image '224'" --model resnet --image 224 -o "$O"
case_ unet-image-not-divisible "divisible by 16" --model unet --image 100x96 -o "$O"
case_ resnet-depth "10, 18 or 34" --model resnet --layers 50 -o "$O"
case_ heads-not-dividing "multiple of --heads" --model transformer --hidden 100 --heads 3 -o "$O"
case_ vary-reversed "--vary-input '9:3'" --model mlp --vary-input 9:3 -o "$O"
case_ vary-not-a-range "--vary-input 'x'" --model mlp --vary-input x -o "$O"
case_ negative-batch "--batch '-4'" --model mlp --batch -4 -o "$O"
case_ unknown-gpu "unknown --gpu 'b200'" --model mlp --gpu b200 -o "$O"
case_ bf16-on-volta "bf16 is not supported on v100" --model mlp --gpu v100 --dtype bf16 -o "$O"
case_ unknown-option "unknown option '--frobnicate'" --model mlp --frobnicate -o "$O"
case_ value-missing "--seed needs a value" --model mlp -o "$O" --seed
case_ output-is-a-directory "out: is a directory; give a file name" --model mlp -o "$T/out"
case_ huge-tensor "2\^48" --model transformer --batch 1048576 --seq 1048576 -o "$O"

# -o in a directory that does not exist: an I/O error naming the path, no file anywhere
expect_fail missing-dir "$GMS_BIN" synth --model mlp -o "$T/no/such/dir/x.gmt"
expect_err_matches missing-dir "^gpumemsim synth: .*$T/no/such/dir/x.gmt"
[ ! -e "$T/no" ] || fail "missing-dir: created $T/no"

# usage errors exit 2, I/O errors 1
set +e
"$GMS_BIN" synth --model vgg -o "$O" 2>/dev/null; [ $? -eq 2 ] || fail "usage error must exit 2"
"$GMS_BIN" synth --model mlp -o "$T/no/x.gmt" 2>/dev/null; [ $? -eq 1 ] || fail "I/O error must exit 1"
set -e

# --help works and names every model
"$GMS_BIN" synth --help >"$T/help.txt" || fail "--help failed"
for w in mlp resnet transformer unet --vary-input --gpu --dtype --weight-update; do
  grep -q -- "$w" "$T/help.txt" || fail "--help does not mention $w"
done
echo "ok"
