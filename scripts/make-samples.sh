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

# MLP: 32 layers of 256 on a 4096 batch; SGD with momentum as MUTATEs; one iteration.
synth mlp-small --model mlp --layers 32 --hidden 256 --batch 4096
# ResNet-18 at a quarter of the width, 96x96 images, batch 32, 10 classes; one iteration.
synth resnet-small --model resnet --layers 18 --hidden 32 --image 96x96 --batch 32 --classes 10
# The same ResNet over 3 iterations whose image side is drawn from [64, 128].
synth resnet-vary --model resnet --layers 18 --hidden 32 --batch 16 --classes 10 \
  --iterations 3 --vary-input 64:128 --seed 1 --weight-update transient
# GPT-style decoder: 4 blocks of width 256, 4 heads, 2048-token vocabulary, Adam, 4 iterations
# whose sequence length is drawn from [64, 256].
synth transformer-small --model transformer --layers 4 --hidden 256 --heads 4 --vocab 2048 \
  --batch 8 --iterations 4 --vary-input 64:256 --seed 1 --weight-update transient
# U-Net with 3 levels, base width 16, 192x192 images, batch 2, in fp16.
synth unet-small --model unet --layers 3 --hidden 16 --image 192x192 --batch 2 --dtype fp16
