#!/usr/bin/env bash
# Reproduces the failures of this program (run from the repository root).
# default: mismatch (distribute(L1.1.0); distribute(L1.1); distribute(L1); interchange(L1.1.1, L1.1.d3); unroll(L1.1.0.d1:8)): MISMATCH in argument 2 at [2, 4, 4]: reference 5.756675004959106e-1, v1 3.4890408515930176e0 (relative error 8.35e-1)
D=$(dirname "$0")
# the pass with default options:
mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --mlir-print-op-on-diagnostic=false \
  --pass-pipeline='builtin.module(func.func(affine-autosched))' "$D/program.mlir" -o /dev/null
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'distribute(L1.1.0); distribute(L1.1); distribute(L1); interchange(L1.1.1, L1.1.d3); unroll(L1.1.0.d1:8)'
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'unroll(L0.0:3); unroll(L1.1.1:2); unroll(L0.1:4); parallelize(L1.0); parallelize(L1); tile(L1.1.1:4)'
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'parallelize(L1.0); tile(L0.0:8); distribute(L1)'
build/cargo/release/autosched run "$D/program.mlir" --reps 1 --warmup 0 --schedule 'unroll(L0.0:3)'
