#!/bin/bash
# Continue the pair of runs/space11-more (build/h16/T0, T1: held out better than the shipped pair
# on every figure, but layernorm ran slower than its original with it) 2 epochs on the dataset
# merged with normalization-000 (the class of layernorm and softmax, with copies in another
# order under an interchange) and the first space-12 chunks (longer k tiles of register tiles).
# The recipe of space11-more but the contraction classes x2 instead of x3 and the normalization
# class x3, so that the continued pair does not drift further from the classes it broke.
# Members staggered by 240 s so that their loading peaks (about 12 GB each) do not meet on this
# 23 GB host.
# Features: build/cargo/release/autosched featurize onnx/data/real/dataset.jsonl.gz --out build/feat17 (about 60 s).
set -e
cd "$(dirname "$0")/../../.."
mkdir -p build/h17
for i in 0 1; do
  .venv/bin/python onnx/train.py --data build/feat17 --out build/h17/T$i --epochs 2 --patience 10 --max-lr 0.0001 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init build/h16/T$i/model.pt --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=2' --oversample '^r3-linear-p=2' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=2' --oversample '^r2-dnn_convolution-p=2' \
    --oversample '^r2-normalization-p=3' \
    > build/h17/train$i.log 2>&1 &
  sleep 240
done
wait
echo trained
