// A parallelize after unrolls is decided by the pass on the loops before them (here the
// unrolled copies' clean-up bounds hide from MLIR's dependence analysis what it saw before).
// One `transform.autosched.step` per step would refuse it, so the script gives the whole
// schedule to one op, which decides it as the pass does, and replays the pass's output. (The fuzzer's
// program f1-388, found in the search's ranking: unroll by 8 of a loop of 4 or 5 iterations.)
//
// RUN: rm -rf %t && split-file %s %t
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="unroll(L0.0:8); parallelize(L0)" emit-transform=%t/script.mlir}))' \
// RUN:   %t/input.mlir -o %t/pass.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=PASS < %t/pass.mlir
// RUN: FileCheck %s --check-prefix=SCRIPT < %t/script.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/script.mlir --transform-interpreter \
// RUN:   %t/input.mlir -o %t/replayed.mlir
// RUN: diff %t/pass.mlir %t/replayed.mlir
// One step at a time: the parallelize refused with the reason, after the unroll.
// RUN: not mlir-opt-22 --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --transform-preload-library=transform-library-paths=%t/steps.mlir --transform-interpreter \
// RUN:   %t/input.mlir 2>&1 | FileCheck %s --check-prefix=STEPS

// PASS: affine.parallel
// SCRIPT: %f2 = transform.autosched.step %f1 "unroll(L0.0:8); parallelize(L0)"
// SCRIPT-NEXT: One op: the pass decides a parallelize after unrolls
// SCRIPT: %f3 = transform.autosched.clear_names %f2
// STEPS: parallelize(L0)) refused: L0 carries a dependence

//--- input.mlir
func.func @kernel(%b0: memref<12x15xi32>, %b1: memref<12xf64>) {
  affine.for %i0 = 0 to 2 {
    affine.for %i1 = affine_map<(d0) -> (-d0 + 2)>(%i0) to 10 step 2 {
      %v1 = affine.load %b1[%i0 + 10] : memref<12xf64>
      %v2 = affine.load %b0[%i1 + 2, -%i1 + 9] : memref<12x15xi32>
      %v3 = arith.sitofp %v2 : i32 to f64
      %v4 = affine.load %b0[%i0 * -2 + 2, %i0 + 13] : memref<12x15xi32>
      %v5 = arith.sitofp %v4 : i32 to f64
      %v6 = arith.addf %v1, %v3 : f64
      %v7 = arith.addf %v6, %v5 : f64
      affine.store %v7, %b1[-%i1 + 9] : memref<12xf64>
    }
  }
  return
}

//--- steps.mlir
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f0 = transform.autosched.match_function "kernel" in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.autosched.name_loops %f0 : (!transform.any_op) -> !transform.any_op
    %f2 = transform.autosched.step %f1 "unroll(L0.0:8)" : (!transform.any_op) -> !transform.any_op
    %f3 = transform.autosched.step %f2 "parallelize(L0)" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
