#!/usr/bin/env bash
# Redo the 2026-12-07 Intel adaptation on the register-tile classes (see README.md):
#   bash onnx/data/real/adapt-intel-tiles/make.sh [WORK]   (about 75 min on 2 cores, quiet machine)
# Measures up to 15 min per class (resumable: run again to continue), then fine-tunes the shipped
# pair both ways and exports WORK/model-tree.onnx and WORK/model-all.onnx.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
W=${1:-build/intel-tiles}
A=build/cargo/release/autosched
D=onnx/data/real
run() { # class seed programs out: the class's committed chunks are skipped (--resume-from)
  local class=$1 seed=$2 n=$3 out=$4
  local res=(--resume-from "$D/dataset.jsonl.gz")
  for f in "$D"/incoming/"$out"-*.jsonl.gz; do res+=(--resume-from "$f"); done
  timeout -s INT "${CAP:-900}" "$A" datagen --sizes real --seed "$seed" --class "$class" --programs "$n" \
    --schedules-per-program 16 --long-walks 4 --lookahead-walks 8 --out "$W/$out" "${res[@]}" --quiet || true
}
run contraction 2 750 contraction
run matmul_chain 2 530 matmul_chain
run linear 3 450 linear_tiles
run dnn_convolution 2 850 dnn_convolution
"$A" merge "$W"/contraction "$W"/matmul_chain "$W"/linear_tiles "$W"/dnn_convolution --out "$W/dataset.jsonl.gz"
"$A" featurize "$W/dataset.jsonl.gz" --out "$W/features"
for mode in tree all; do
  .venv/bin/python onnx/adapt.py --base onnx/model.pt onnx/model.seed1.pt --data "$W/features" \
    --out "$W/model-$mode" --mode "$mode" --no-scratch --threads 1 &
done
wait
for mode in tree all; do
  .venv/bin/python onnx/export.py --checkpoint "$W/model-$mode/model.pt" "$W/model-$mode/model.seed1.pt" \
    --data "$W/features" --dataset "$W/dataset.jsonl.gz" --out "$W/model-$mode.onnx" --reference "$W/reference-$mode.json"
done
