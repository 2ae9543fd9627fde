#!/bin/bash
# Continue build/h20 (the shipped pair continued 2 epochs on the dataset merged with dnn_layer-000;
# ../dnn-layer/train-shipped.sh) 1 epoch on the dataset merged with dnn_layer_parallel-000: DNN
# layers whose drawn schedules were measured beside their parallel neighbours (the same schedule,
# other parallel loops). The recipe of train-shipped.sh, the new programs x3 as well.
# Members one after the other: loading peaks of about 14.5 GB, then about 9.5 GB each, on this
# 23 GB host (a member started beside the other while a cargo build ran was killed for memory).
# Features: build/cargo/release/autosched featurize onnx/data/real/dataset.jsonl.gz --out build/feat21 (about 60 s).
set -e
cd "$(dirname "$0")/../../.."
mkdir -p build/h21
for i in 0 1; do
  .venv/bin/python onnx/train.py --data build/feat21 --out build/h21/T$i --epochs 1 --patience 10 --max-lr 0.0001 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init build/h20/T$i/model.pt --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=2' --oversample '^r3-linear-p=2' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=2' --oversample '^r2-dnn_convolution-p=3' \
    --oversample '^r2-normalization-p=3' --oversample '^c4-=2' --oversample '^r2-dnn_layer-p=3' \
    --oversample '^r3-dnn_layer-p=3' \
    > build/h21/train$i.log 2>&1
done
echo trained
