// Unrolling a loop that is empty for some iterations of an enclosing loop (ub < lb).
// MLIR's unrollers start the clean-up loop at lb + floor(tripcount / f) * f * step; with a
// negative trip count that falls below lb and the clean-up loop ran iterations the
// original never ran (autosched run: MISMATCH). The clean-up loop's lower bound is now
// max(lb, that bound).
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@triangular: unroll(L0.0:4)"}))' %s 2>/dev/null | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@step2: unroll(L0.0:2)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=STEP2
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@jam: unroll(L0.0:2)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=JAM
// A loop with constant bounds is never empty for some iterations only: no max.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@constant: unroll(L0.0:4)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=CONST
// MLIR's unroller cannot unroll that clean-up loop again (a max lower bound and a trip
// count not known to divide): refused before anything changes, not a utility failure.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@triangular: unroll(L0.0:2); unroll(L0.0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=AGAIN
// The transformed code computes what the original computes.
// RUN: %autosched run %s --function triangular -s "unroll(L0.0:4)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function step2 -s "unroll(L0.0:2)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function step2 -s "unroll(L0.0:3)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function jam -s "unroll(L0.0:2)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function jam -s "unroll(L0.0:3)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC

// CHECK-DAG:  #[[UB:.*]] = affine_map<(d0) -> (d0 + ((-d0) floordiv 4) * 4 + 4)>
// CHECK-DAG:  #[[MAX:.*]] = affine_map<(d0) -> (d0, d0 + ((-d0) floordiv 4) * 4 + 4)>
// CHECK-LABEL: func.func @triangular
// CHECK:        affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT:     affine.for %{{.*}} = #{{.*}}(%[[I]]) to #[[UB]](%[[I]]) step 4 {
// CHECK-COUNT-4:    affine.store
// CHECK:          }
// CHECK-NEXT:     affine.for %{{.*}} = max #[[MAX]](%[[I]]) to 4 {
// CHECK-NEXT:       affine.load
// CHECK-NEXT:       arith.addf
// CHECK-NEXT:       affine.store
// CHECK-NEXT:     }
// CHECK-NEXT:   }

// STEP2-DAG:  #[[MAX:.*]] = affine_map<(d0) -> (d0, d0 + (((-d0 + 9) ceildiv 2) floordiv 2) * 4)>
// STEP2-LABEL: func.func @step2
// STEP2:        affine.for %[[I:.*]] = 0 to 12 {
// STEP2-NEXT:     affine.for %{{.*}} = #{{.*}}(%[[I]]) to #{{.*}}(%[[I]]) step 4 {
// STEP2:          affine.for %{{.*}} = max #[[MAX]](%[[I]]) to 9 step 2 {

// JAM-DAG:  #[[MAX:.*]] = affine_map<(d0) -> (d0, d0 + ((-d0) floordiv 2) * 2 + 4)>
// JAM-LABEL: func.func @jam
// JAM:        affine.for %[[T:.*]] = 0 to 6 {
// JAM-NEXT:     affine.for %{{.*}} = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) step 2 {
// JAM-NEXT:       affine.for %{{.*}} = 0 to 5 {
// JAM-COUNT-2:      affine.store
// JAM:          affine.for %{{.*}} = max #[[MAX]](%[[T]]) to 4 {
// JAM-NEXT:       affine.for %{{.*}} = 0 to 5 {

// CONST-LABEL: func.func @constant
// CONST:        affine.for %{{.*}} = 0 to 8 step 4 {
// CONST:        affine.for %{{.*}} = 8 to 10 {
// CONST-NOT:    max

// AGAIN: error: affine-autosched: schedule not applied to @triangular: step 2 (unroll(L0.0:2)) refused: L0.0 has a max or min bound and a trip count that is not a known multiple of 2 (MLIR's unroller cannot bound the clean-up loop; L0.0's lower bound is a max of several expressions); the IR was left unchanged

// EXEC: equivalent: all buffers bitwise identical

func.func @triangular(%A: memref<8xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to 8 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 4 {
      %a = affine.load %A[%j] : memref<8xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%j] : memref<8xf64>
    }
  }
  return
}

func.func @step2(%A: memref<16xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to 12 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 9 step 2 {
      %a = affine.load %A[%j] : memref<16xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%j] : memref<16xf64>
    }
  }
  return
}

// Unroll-and-jam of %i, whose own lower bound depends on %t.
func.func @jam(%A: memref<8x8xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %t = 0 to 6 {
    affine.for %i = affine_map<(d0) -> (d0)>(%t) to 4 {
      affine.for %j = 0 to 5 {
        %a = affine.load %A[%i, %j] : memref<8x8xf64>
        %s = arith.addf %a, %one : f64
        affine.store %s, %A[%i, %j] : memref<8x8xf64>
      }
    }
  }
  return
}

func.func @constant(%A: memref<4x10xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 10 {
      %a = affine.load %A[%i, %j] : memref<4x10xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%i, %j] : memref<4x10xf64>
    }
  }
  return
}
