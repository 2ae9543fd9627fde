#!/bin/bash
# Continue the shipped pair (onnx/model.pt, onnx/model.seed1.pt; layout 8, shipped 2026-12-06 from
# build/cand12) 3 epochs on the merged dataset with all of space 9's chunks: dnn_convolution-000
# and -001, contraction-002 and -003, matmul_chain-002 and linear_tiles-001 (register tiles of
# the loops as they are, under lookahead walks). The recipe of space9-conv (which continued on
# the first two of these chunks only and lost conv2d: runs/space9-conv), the classes the
# benchmark contractions belong to x3: contraction, matmul_chain, the linear programs of seed 3,
# the rank_update programs from p300, dnn_convolution.
set -e
cd /work/main
mkdir -p build/h14
i=0
for init in onnx/model.pt onnx/model.seed1.pt; do
  .venv/bin/python onnx/train.py --data build/feat14 --out build/h14/T$i --epochs 3 --patience 10 --max-lr 0.00015 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init $init --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=3' --oversample '^r3-linear-p=3' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=3' --oversample '^r2-dnn_convolution-p=3' \
    > build/h14/train$i.log 2>&1
  i=$((i+1))
done
echo trained
