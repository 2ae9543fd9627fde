#!/bin/bash
# Continue the pair of runs/space11 (build/h15/T0, T1: the shipped pair continued 3 epochs on the
# first space-11 chunks) 2 epochs on the dataset merged with the chunks measured after it
# (tiles-006 and the space-11 chunks of 2026-12-07's second Zen 4 session), by the same recipe
# (the classes of the benchmark contractions x3). Members staggered by 240 s so that their
# loading peaks (about 12 GB each) do not meet on this 23 GB host.
# Features: build/cargo/release/autosched featurize onnx/data/real/dataset.jsonl.gz --out build/feat16 (about 55 s).
set -e
cd "$(dirname "$0")/../../.."
mkdir -p build/h16
for i in 0 1; do
  .venv/bin/python onnx/train.py --data build/feat16 --out build/h16/T$i --epochs 2 --patience 10 --max-lr 0.0001 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init build/h15/T$i/model.pt --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=3' --oversample '^r3-linear-p=3' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=3' --oversample '^r2-dnn_convolution-p=3' \
    > build/h16/train$i.log 2>&1 &
  sleep 240
done
wait
echo trained
