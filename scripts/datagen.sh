#!/usr/bin/env bash
# Generates (or grows, by resuming) the committed dataset and its data card:
#   bash scripts/datagen.sh [PROGRAMS]      default 3000 programs x 16 schedules, seed 1
# Raw shards go to onnx/data/raw-s1/ (not committed); the merged, compressed dataset to
# onnx/data/dataset.jsonl.gz and the card to onnx/data/README.md + speedups.png.
# Interrupt it at any time; running it again continues where it stopped. Programs already
# in the committed dataset are skipped (--resume-from), so a fresh clone grows it too.
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-3000}
cmd="autosched datagen --sizes toy --seed 1 --programs $programs --schedules-per-program 16 --out onnx/data/raw-s1"
resume=()
[[ -f onnx/data/dataset.jsonl.gz ]] && resume=(--resume-from onnx/data/dataset.jsonl.gz)
build/cargo/release/autosched datagen --sizes toy --seed 1 --programs "$programs" --schedules-per-program 16 \
  --out onnx/data/raw-s1 "${resume[@]}" || true
inputs=(onnx/data/raw-s1)
[[ -f onnx/data/dataset.jsonl.gz ]] && inputs+=(onnx/data/dataset.jsonl.gz)
build/cargo/release/autosched merge "${inputs[@]}" --out onnx/data/dataset.jsonl.gz
.venv/bin/python onnx/data_card.py onnx/data/dataset.jsonl.gz --command "$cmd" \
  --failed onnx/data/raw-s1/*.failed.jsonl
