#!/bin/bash
# Continue the *shipped* pair (onnx/model.pt, onnx/model.seed1.pt: trained on space-8 data, before
# any dnn_convolution or dnn_layer point) 2 epochs on the dataset merged with dnn_layer-000, instead
# of the build/h13..h18 line, every continuation of which lost dense (its register tile without W's
# transposed copy) and layernorm end to end. The recipe of train.sh, the DNN classes x3.
# Members staggered by 240 s (loading peaks of about 12-14.5 GB each on this 23 GB host): nothing else
# that needs memory beside them (on 2026-12-07 the second was killed for memory beside a cargo build
# and was rerun alone; ../parallel-neighbours/train.sh runs its members one after the other).
# Features: build/cargo/release/autosched featurize onnx/data/real/dataset.jsonl.gz --out build/feat19 (about 60 s).
set -e
cd "$(dirname "$0")/../../.."
mkdir -p build/h20
inits=(onnx/model.pt onnx/model.seed1.pt)
for i in 0 1; do
  .venv/bin/python onnx/train.py --data build/feat19 --out build/h20/T$i --epochs 2 --patience 10 --max-lr 0.0001 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init "${inits[$i]}" --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=2' --oversample '^r3-linear-p=2' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=2' --oversample '^r2-dnn_convolution-p=3' \
    --oversample '^r2-normalization-p=3' --oversample '^c4-=2' --oversample '^r2-dnn_layer-p=3' \
    > build/h20/train$i.log 2>&1 &
  sleep 240
done
wait
echo trained
