#!/usr/bin/env bash
# Reproduces the failures of this program (run from the repository root).
# random2: illegal step accepted: parallelize(L1.1): read #0 of statement at [1, 1, 0] at [L1=2, L1.1=2] runs unordered with write #1 of statement at [1, 1, 0] at [L1=2, L1.1=4]
D=$(dirname "$0")
# the pass with default options:
mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --mlir-print-op-on-diagnostic=false \
  --pass-pipeline='builtin.module(func.func(affine-autosched))' "$D/program.mlir" -o /dev/null
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'distribute(L1); tile(L0.0:4); tile(L0:16); distribute(L0); vectorize(L1.1:2)'
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'distribute(L1); tile(L1.d1:4, L1.1:7); unroll(L1.1:4)'
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'vectorize(L1.1:2); parallelize(L1.1)'
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'parallelize(L1.1)'
