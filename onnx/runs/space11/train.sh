#!/bin/bash
# Continue the shipped pair 3 epochs on the merged dataset with the space-11 chunks of 2026-12-07
# (contraction-004, matmul_chain-003, dnn_convolution-002, linear_tiles-002), by the recipe of
# space9-more (the classes the benchmark contractions belong to x3). Members staggered by 240 s so
# their loading peaks (about 12 GB each) do not meet on this 23 GB host.
# Features: build/cargo/release/autosched featurize onnx/data/real/dataset.jsonl.gz --out build/feat15 (54 s).
set -e
cd "$(dirname "$0")/../../.."
mkdir -p build/h15
i=0
for init in onnx/model.pt onnx/model.seed1.pt; do
  .venv/bin/python onnx/train.py --data build/feat15 --out build/h15/T$i --epochs 3 --patience 10 --max-lr 0.00015 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init $init --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=3' --oversample '^r3-linear-p=3' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=3' --oversample '^r2-dnn_convolution-p=3' \
    > build/h15/train$i.log 2>&1 &
  i=$((i+1))
  sleep 240
done
wait
echo trained
