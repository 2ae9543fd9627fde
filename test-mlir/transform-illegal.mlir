// Illegal or malformed schedules: an error that names the step and the reason, and the
// function left as it was (--mlir-print-ir-after-failure prints it after the failure).
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="interchange(L0.0.0, L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefixes=INTERCHANGE,UNCHANGED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0.0:16, L0.0.0:16)"}))' %s 2>&1 | FileCheck %s --check-prefixes=TILE,UNCHANGED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefixes=PARALLEL,UNCHANGED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="unroll(L0.0:2)"}))' %s 2>&1 | FileCheck %s --check-prefixes=JAM,UNCHANGED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="vectorize(L0.0.0:8)"}))' %s 2>&1 | FileCheck %s --check-prefixes=VECTOR,UNCHANGED
// A legal first step does not survive an illegal second one.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0.0.0:16); parallelize(L0)"}))' %s 2>&1 | FileCheck %s --check-prefixes=SECOND,UNCHANGED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L7.0)"}))' %s 2>&1 | FileCheck %s --check-prefixes=NAME,UNCHANGED
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="tile(L0.0:16 L0.0.0:16)"}))' %s 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not %autosched apply %s -s "interchange(L0.0.0, L0.0)" 2>&1 | FileCheck %s --check-prefix=CLI

// INTERCHANGE: error: affine-autosched: schedule not applied to @seidel_2d: step 1 (interchange(L0.0.0, L0.0)) refused: interchange(L0.0.0, L0.0) would reverse a dependence (a dependence vector would become lexicographically negative); the IR was left unchanged
// TILE: error: affine-autosched: schedule not applied to @seidel_2d: step 1 (tile(L0.0:16, L0.0.0:16)) refused: tiling would reverse a dependence: the band is not fully permutable (a dependence component along L0.0.0 may be negative); the IR was left unchanged
// PARALLEL: step 1 (parallelize(L0.0)) refused: L0.0 carries a dependence
// JAM: step 1 (unroll(L0.0:2)) refused: unroll-and-jam of L0.0 would reverse a dependence it carries
// VECTOR: step 1 (vectorize(L0.0.0:8)) refused: L0.0.0 carries a dependence shorter than 8 iterations from an operation to one before it in the body (or to itself)
// SECOND: step 2 (parallelize(L0)) refused: L0 carries a dependence
// NAME: step 1 (parallelize(L7.0)): no loop named L7.0 in @seidel_2d (its loops: L0, L0.0, L0.0.0)
// SYNTAX: error: affine-autosched: option 'schedule': schedule:14: expected ')' to close tile(...), found 'L'
// CLI: autosched: error: schedule not applied to @seidel_2d: step 1 (interchange(L0.0.0, L0.0)) refused

// UNCHANGED:      IR Dump After {{.*}}AffineAutoschedPass Failed (affine-autosched)
// UNCHANGED-NEXT: func.func @seidel_2d
// UNCHANGED-NEXT:   arith.constant
// UNCHANGED-NEXT:   affine.for %[[T:.*]] = 0 to 40 {
// UNCHANGED-NEXT:     affine.for %[[I:.*]] = 1 to 199 {
// UNCHANGED-NEXT:       affine.for %[[J:.*]] = 1 to 199 {
// UNCHANGED-NEXT:         affine.load %{{.*}}[%[[I]] - 1, %[[J]] - 1]
// UNCHANGED-NOT: autosched.loop
// UNCHANGED-NOT: affine.parallel
// UNCHANGED-NOT: step

func.func @seidel_2d(%A: memref<200x200xf64>) {
  %c9 = arith.constant 9.0 : f64
  affine.for %t = 0 to 40 {
    affine.for %i = 1 to 199 {
      affine.for %j = 1 to 199 {
        %a0 = affine.load %A[%i - 1, %j - 1] : memref<200x200xf64>
        %a1 = affine.load %A[%i - 1, %j] : memref<200x200xf64>
        %a2 = affine.load %A[%i - 1, %j + 1] : memref<200x200xf64>
        %a3 = affine.load %A[%i, %j - 1] : memref<200x200xf64>
        %a4 = affine.load %A[%i, %j] : memref<200x200xf64>
        %a5 = affine.load %A[%i, %j + 1] : memref<200x200xf64>
        %a6 = affine.load %A[%i + 1, %j - 1] : memref<200x200xf64>
        %a7 = affine.load %A[%i + 1, %j] : memref<200x200xf64>
        %a8 = affine.load %A[%i + 1, %j + 1] : memref<200x200xf64>
        %s1 = arith.addf %a0, %a1 : f64
        %s2 = arith.addf %s1, %a2 : f64
        %s3 = arith.addf %s2, %a3 : f64
        %s4 = arith.addf %s3, %a4 : f64
        %s5 = arith.addf %s4, %a5 : f64
        %s6 = arith.addf %s5, %a6 : f64
        %s7 = arith.addf %s6, %a7 : f64
        %s8 = arith.addf %s7, %a8 : f64
        %r = arith.divf %s8, %c9 : f64
        affine.store %r, %A[%i, %j] : memref<200x200xf64>
      }
    }
  }
  return
}
