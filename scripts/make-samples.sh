#!/usr/bin/env bash
# Regenerates the bundled synthetic traces in traces/samples/ (see traces/samples/README.md).
#   scripts/make-samples.sh [OUT_DIR]     default OUT_DIR: traces/samples
# Uses $GMS_BIN when set, else build/cli/gpumemsim. The output is a pure function of these
# commands: tests/cli/synth/samples_regenerate.sh checks the committed files against it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/traces/samples}
bin=${GMS_BIN:-$root/build/cli/gpumemsim}
[ -x "$bin" ] || { echo "make-samples.sh: no gpumemsim at $bin (build first or set GMS_BIN)" >&2; exit 1; }
mkdir -p "$out"
synth() { local name=$1; shift; "$bin" synth "$@" -o "$out/$name.gmt"; }

# Activations dominate, as in real training: batch and input sizes are large next to the
# parameters, so memory budgets of 0.5..0.7 of the peak are reachable by rematerialization and
# the policies differ there (traces/samples/README.md has the numbers).
# MLP: 64 layers of 128 on a 8192 batch; SGD with momentum; one iteration.
synth mlp-small --model mlp --layers 64 --hidden 128 --batch 8192
# ResNet-34 at a quarter of the width, 96x96 images, batch 32, 10 classes; one iteration.
synth resnet-small --model resnet --layers 34 --hidden 16 --image 96x96 --batch 32 --classes 10
# ResNet-18 over 3 iterations whose image side is drawn from [96, 160].
synth resnet-vary --model resnet --layers 18 --hidden 16 --batch 16 --classes 10 \
  --iterations 3 --vary-input 96:160 --seed 1 --weight-update transient
# GPT-style decoder: 6 blocks of width 128, 4 heads, 1024-token vocabulary, Adam, 3 iterations
# whose sequence length is drawn from [128, 384].
synth transformer-small --model transformer --layers 6 --hidden 128 --heads 4 --vocab 1024 \
  --batch 8 --iterations 3 --vary-input 128:384 --seed 1 --weight-update transient
# U-Net with 3 levels, base width 8, 192x192 images, batch 8, in fp16.
synth unet-small --model unet --layers 3 --hidden 8 --image 192x192 --batch 8 --dtype fp16
