#!/bin/bash
# After train.sh: fine-tune the network trained elsewhere on budgets of host A's training
# programs (1%, 2.5% and 5% of the shipped dataset's 328,461 points), each compared on the
# same held-out programs (train.py's test split of host A, seed 1) with the network trained on
# all of host A's training programs (--reference). The 5% run also trains a network from
# scratch on its budget alone.
set -e
cd "$(dirname "$0")/../../.."
W=build/adapt-rec
R=onnx/runs/adapt-recorded
for budget in 3285 8212 16423; do
  scratch=--no-scratch
  [ $budget = 16423 ] && scratch=
  [ -f $W/adapt-$budget/adapt.json ] || .venv/bin/python onnx/adapt.py --base $W/elsewhere-model/model.pt \
    --data $W/here-feat --out $W/adapt-$budget --split train --split-seed 1 --fine-tune-points $budget \
    --reference $W/here-model/model.pt $scratch --threads 2 --quiet > $W/adapt-$budget.log 2>&1
  cp $W/adapt-$budget/adapt.json $R/adapt-$budget.json
  tail -n 1 $W/adapt-$budget.log
done
