#!/bin/bash
# Continue the shipped pair (onnx/model.pt, onnx/model.seed1.pt; layout 7) 3 epochs on the merged
# dataset with 2026-12-05 night's space-8 chunks (linear_tiles-000: linear programs of seed 3 under
# lookahead walks, with transposed operands copied in another order; rank_update-001), widened to
# layout 8 (packed_reordered_loads starts at zero weight: train.py --init-layout, the shipped
# layout.json beside --init). The shipped recipe: the contraction and matmul_chain classes x3, the new
# chunks' programs x3.
set -e
cd /work/main
i=0
for init in onnx/model.pt onnx/model.seed1.pt; do
  .venv/bin/python onnx/train.py --data build/feat12 --out build/h12/T$i --epochs 3 --patience 10 --max-lr 0.00015 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init $init --init-layout onnx/layout.json --select picks --heads 1 --laplace 0.8 \
    --laplace-mean regression --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $i \
    --split-seed 1 --threads 1 --quiet \
    --oversample '^r2-(contraction|matmul_chain)-p=3' --oversample '^r3-linear-p=3' \
    --oversample '^r2-rank_update-p(3[0-9][0-9])$=3' \
    > build/h12/train$i.log 2>&1 &
  i=$((i+1))
done
wait
echo trained
