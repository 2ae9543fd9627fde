#!/bin/bash
# Adaptation on recorded data (onnx/REPORT.md, "Adapting on recorded data"): host A of the data
# card plays the new machine. Two networks from scratch with the same recipe and budget (the
# shipped recipe without its lineage: no --init, no oversampling; 12 epochs):
#   elsewhere: every point of the other hosts whose program has no point on host A (the model
#              that was never measured "here");
#   here:      host A's points, train.py's split (seed 1): its test programs are the held-out
#              programs every figure of the experiment is taken on.
# Then onnx/adapt.py fine-tunes `elsewhere` on at most 5% of the shipped dataset's size of host
# A's training programs and compares, on the same held-out programs, with `here`.
set -e
cd "$(dirname "$0")/../../.."
W=build/adapt-rec
[ -f $W/here.jsonl.gz ] || .venv/bin/python onnx/host_split.py onnx/data/real/dataset.jsonl.gz --host A \
  --here $W/here.jsonl.gz --elsewhere $W/elsewhere.jsonl.gz
[ -d $W/here-feat ] || build/cargo/release/autosched featurize $W/here.jsonl.gz --out $W/here-feat
[ -d $W/elsewhere-feat ] || build/cargo/release/autosched featurize $W/elsewhere.jsonl.gz --out $W/elsewhere-feat
RECIPE="--epochs 12 --patience 10 --max-lr 0.001 --weight-decay 0.0075 --dropout 0.225 --batch 32
  --programs-per-batch 16 --loss log_l1 --rank-weight 1.0 --rank-pairs top --select picks --heads 1
  --laplace 0.8 --laplace-mean regression --noisy-weight 0.5
  --drop-features (working_set|caches_exceeded|stride_) --seed 0 --split-seed 1 --threads 1 --quiet"
for which in elsewhere here; do
  [ -f $W/$which-model/model.pt ] || .venv/bin/python onnx/train.py --data $W/$which-feat --out $W/$which-model \
    $RECIPE > $W/train-$which.log 2>&1 &
done
wait
echo trained
