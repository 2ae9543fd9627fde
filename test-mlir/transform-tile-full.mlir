// Tiling a band that is not fully permutable when the loops that are not permutable are
// innermost and their tile covers the whole trip count. A[i][j] = A[i-1][j+1] + 1 has a
// dependence of distance (1, -1). A tile of j as large as j's 11 iterations leaves j
// whole and innermost (its tile loop runs once): the schedule is i strip-mined, legal.
// A smaller tile of j puts later j tiles of row i after earlier ones of row i+1: refused.
// A whole loop at the outer end of the band does not count: with i's tile covering its
// 15 iterations, j's tile loop is hoisted above i's point loop (an interchange): refused.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@skewed: tile(L0:4, L0.0:11)"}))' %s 2>&1 | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@skewed: tile(L0:4, L0.0:32)"}))' %s 2>&1 | FileCheck %s --check-prefix=LARGER
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@skewed: tile(L0:4, L0.0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@skewed: tile(L0:4, L0.0:10)"}))' %s 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@skewed: tile(L0:16, L0.0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=SMALL
// Tile sizes count iterations: with step 2, j's 11 iterations span 22 and a tile of 11
// covers them.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@step2: tile(L0:4, L0.0:11)"}))' %s 2>&1 | FileCheck %s --check-prefix=STEP2
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@step2: tile(L0:4, L0.0:10)"}))' %s 2>&1 | FileCheck %s --check-prefix=SMALL
// The accepted schedules compute what the originals compute.
// RUN: %autosched run %s --function skewed -s "tile(L0:4, L0.0:11)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function skewed -s "tile(L0:4, L0.0:32)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function step2 -s "tile(L0:4, L0.0:11)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC

// CHECK:      remark: affine-autosched: applied schedule to @skewed: tile(L0:4, L0.0:11)
// CHECK-LABEL: func.func @skewed
// CHECK:        affine.for %[[II:.*]] = 1 to 16 step 4 {
// CHECK-NEXT:     affine.for %[[JJ:.*]] = 0 to 11 step 11 {
// CHECK-NEXT:       affine.for %{{.*}} = #{{.*}}(%[[II]]) to min #{{.*}}(%[[II]]) {
// CHECK-NEXT:         affine.for %{{.*}} = #{{.*}}(%[[JJ]]) to #{{.*}}(%[[JJ]]) {

// LARGER:      remark: affine-autosched: applied schedule to @skewed: tile(L0:4, L0.0:32)
// LARGER-LABEL: func.func @skewed
// LARGER:        affine.for %{{.*}} = 1 to 16 step 4 {
// LARGER-NEXT:     affine.for %{{.*}} = 0 to 11 step 32 {

// SMALL: refused: tiling would reverse a dependence: the band is not fully permutable (a dependence component along L0.0 may be negative); the IR was left unchanged

// STEP2:      remark: affine-autosched: applied schedule to @step2: tile(L0:4, L0.0:11)
// STEP2-LABEL: func.func @step2
// STEP2:        affine.for %{{.*}} = 1 to 16 step 4 {
// STEP2-NEXT:     affine.for %{{.*}} = 0 to 21 step 22 {

// EXEC: equivalent: all buffers bitwise identical

func.func @skewed(%A: memref<16x12xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 1 to 16 {
    affine.for %j = 0 to 11 {
      %a = affine.load %A[%i - 1, %j + 1] : memref<16x12xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%i, %j] : memref<16x12xf64>
    }
  }
  return
}

func.func @step2(%A: memref<16x24xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 1 to 16 {
    affine.for %j = 0 to 21 step 2 {
      %a = affine.load %A[%i - 1, %j + 2] : memref<16x24xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%i, %j] : memref<16x24xf64>
    }
  }
  return
}
