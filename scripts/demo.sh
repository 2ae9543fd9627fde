#!/usr/bin/env bash
# The main job, for now: run the pass on a kernel from benchmarks/ inside an ordinary
# mlir-opt pipeline and show what it sees. (It grows into "optimize the kernel and show its
# measured speedup" once the search and the cost model land.)
#   bash scripts/demo.sh [KERNEL.mlir]
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=${1:-benchmarks/kernels/gemm.mlir}

echo "== mlir-opt-22 with the plugin: canonicalize, affine-autosched{dump-representation=true}"
mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --mlir-print-op-on-diagnostic=false \
  --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' \
  "$kernel" -o /dev/null 2>&1 | cut -c1-240
echo "   (remarks cut to 240 columns; the full JSON is what 'autosched describe' prints)"
echo
echo "== autosched describe --tree $kernel"
build/cargo/release/autosched describe --tree "$kernel"
