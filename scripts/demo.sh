#!/usr/bin/env bash
# The main job, for now: show what the pass sees in a PolyBench kernel, then take two
# hand-written schedules, ask the shipped cost model for their predicted speedups, and
# measure them against the original on this machine (outputs checked bit for bit). Once
# the search lands, the pass picks the schedule itself and this shows its choice.
#   bash scripts/demo.sh [KERNEL.mlir]
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=${1:-benchmarks/kernels/gemm.mlir}
autosched=build/cargo/release/autosched

echo "== mlir-opt-22 with the plugin: canonicalize, affine-autosched{dump-representation=true}"
mlir-opt-22 --load-pass-plugin=build/lib/libAffineAutosched.so --mlir-print-op-on-diagnostic=false \
  --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' \
  "$kernel" -o /dev/null 2>&1 | cut -c1-240
echo "   (remarks cut to 240 columns; the full JSON is what 'autosched describe' prints)"
echo
echo "== autosched describe --tree $kernel"
"$autosched" describe --tree "$kernel"

if [[ "$kernel" == benchmarks/kernels/gemm.mlir ]]; then
  for schedule in "parallelize(L0)" "parallelize(L0); vectorize(L0.1.0:4)"; do
    echo
    echo "== autosched predict / run $kernel --schedule \"$schedule\""
    "$autosched" predict "$kernel" --schedule "$schedule"
    "$autosched" run "$kernel" --schedule "$schedule" --reps 3 --warmup 1
  done
  echo
  echo "(The second schedule is legal but slower: LLVM already vectorizes the naive j loop"
  echo " 16 lanes wide. Telling such schedules apart is the cost model's job: onnx/REPORT.md.)"
fi
