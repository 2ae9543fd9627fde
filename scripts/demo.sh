#!/usr/bin/env bash
# The main job: optimize a PolyBench kernel with the pass and the shipped cost model, then
# measure the result against the original on this machine (outputs checked bit for bit).
#   bash scripts/demo.sh [KERNEL.mlir]
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=${1:-benchmarks/polybench/gemm.mlir}
autosched=build/cargo/release/autosched
out=$(mktemp --suffix=.mlir)
trap 'rm -f "$out"' EXIT

echo "== what the pass sees: autosched describe --tree $kernel"
"$autosched" describe --tree "$kernel"
echo
echo "== mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --pass-pipeline='builtin.module(func.func(affine-autosched))'"
mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --mlir-print-op-on-diagnostic=false \
  --pass-pipeline='builtin.module(func.func(affine-autosched))' "$kernel" -o "$out" 2>&1 | grep "remark:"
echo
echo "== measured: the optimized kernel against the original (autosched run --variant)"
"$autosched" run "$kernel" --variant "optimized=$out" --reps 5 --warmup 1
echo
echo "(PolyBench against MLIR's own passes, clang and Polly: benchmarks/RESULTS.md,"
echo " made by .venv/bin/python benchmarks/run.py.)"
