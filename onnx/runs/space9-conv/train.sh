#!/bin/bash
# Continue the shipped pair (onnx/model.pt, onnx/model.seed1.pt; layout 8, shipped 2026-12-06 from
# build/cand12) 3 epochs on the merged dataset with 2026-12-06's space-9 chunk dnn_convolution-000
# (DNN convolution layers under lookahead walks: register tiles of the loops as they are, rows over
# columns around reductions several loops deep). Same recipe as space8-reordered (the contraction
# and matmul_chain classes x3, the transposed-operand and rank-update chunks x3), the new chunk's
# programs x3; the layout is unchanged (no --init-layout).
set -e
cd /work/main
mkdir -p build/h13
i=0
for init in onnx/model.pt onnx/model.seed1.pt; do
  .venv/bin/python onnx/train.py --data build/feat13 --out build/h13/T$i --epochs 3 --patience 10 --max-lr 0.00015 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init $init --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=3' --oversample '^r3-linear-p=3' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=3' --oversample '^r2-dnn_convolution-p=3' \
    > build/h13/train$i.log 2>&1 &
  i=$((i+1))
done
wait
echo trained
