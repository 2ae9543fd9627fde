#!/bin/bash
# Continue the shipped pair (build/h8/T0, T1) 3 epochs on the merged dataset with tiles-004/005, by the shipped recipe.
set -e
cd /work/main
for seed in 0 1; do
  .venv/bin/python onnx/train.py --data build/feat9 --out build/h9/T$seed --epochs 3 --patience 10 --max-lr 0.00015 \
    --weight-decay 0.0075 --dropout 0.225 --batch 32 --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 \
    --rank-pairs top --init build/h8/T$seed/model.pt --select picks --heads 1 --laplace 0.8 --laplace-mean regression \
    --noisy-weight 0.5 --drop-features '(working_set|caches_exceeded|stride_)' --seed $seed --split-seed 1 --threads 1 --quiet \
    > build/h9/train$seed.log 2>&1 &
done
wait
echo trained
