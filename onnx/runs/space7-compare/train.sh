#!/bin/bash
# Continue the shipped pair (onnx/model.pt, onnx/model.seed1.pt) 3 epochs on the merged dataset with
# this evening's chunks (contraction-001: space 6; linear-005; matmul_chain-001: space 5), by the
# shipped recipe: the contraction and matmul_chain classes x3, the new chunks' programs x3.
set -e
cd /work/main
i=0
for init in onnx/model.pt onnx/model.seed1.pt; do
  .venv/bin/python onnx/train.py --data build/feat11 --out build/h11/T$i --epochs 3 --patience 10 --max-lr 0.00015 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init $init --select picks --heads 1 --laplace 0.8 --laplace-mean regression \
    --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=3' --oversample '^r2-linear-p(6[5-9][0-9]|7[01][0-9])$=3' \
    > build/h11/train$i.log 2>&1 &
  i=$((i+1))
done
wait
echo trained
