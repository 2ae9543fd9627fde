#!/bin/bash
# Continue the pair of runs/resident (build/h18/T0, T1) 2 epochs on the dataset merged with the
# first dnn_layer chunk (--class dnn_layer: DNN convolutions whose output is zeroed or set to a
# bias in its own nest first, over a batch sometimes, with a ReLU nest after sometimes: the form
# of every DNN benchmark layer, which no generated layer had). The recipe of runs/resident, the
# dnn_layer programs x3.
# Members staggered by 240 s so that their loading peaks (about 12 GB each) do not meet on this
# 23 GB host.
# Features: build/cargo/release/autosched featurize onnx/data/real/dataset.jsonl.gz --out build/feat19 (about 60 s).
set -e
cd "$(dirname "$0")/../../.."
mkdir -p build/h19
for i in 0 1; do
  .venv/bin/python onnx/train.py --data build/feat19 --out build/h19/T$i --epochs 2 --patience 10 --max-lr 0.0001 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init build/h18/T$i/model.pt --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=2' --oversample '^r3-linear-p=2' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=2' --oversample '^r2-dnn_convolution-p=2' \
    --oversample '^r2-normalization-p=3' --oversample '^c4-=2' --oversample '^r2-dnn_layer-p=3' \
    > build/h19/train$i.log 2>&1 &
  sleep 240
done
wait
echo trained
