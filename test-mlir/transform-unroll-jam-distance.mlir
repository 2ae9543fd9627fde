// Unroll-and-jam and the distance of the dependences it carries. A[i+2][j-1] = A[i][j] + 1
// carries a dependence of distance (2, -1): jamming two consecutive iterations of i
// keeps its source and sink in different groups (the sink's group runs after the
// source's), so unroll(L0:2) is legal; unroll(L0:4) puts both in one group, where the
// sink's j-1 would run before the source's j: refused.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@distance2: unroll(L0:2)"}))' %s 2>&1 | FileCheck %s
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@distance2: unroll(L0:4)"}))' %s 2>&1 | FileCheck %s --check-prefix=REFUSED4
// Distances are in units of the induction variable: with step 2, A[i+4] is two
// iterations away, so a factor of 2 (groups spanning 4) is legal and 3 (6) is not.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@step2: unroll(L0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=STEP2
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@step2: unroll(L0:3)"}))' %s 2>&1 | FileCheck %s --check-prefix=REFUSED3
// The accepted schedules compute what the originals compute.
// RUN: %autosched run %s --function distance2 -s "unroll(L0:2)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC
// RUN: %autosched run %s --function step2 -s "unroll(L0:2)" --reps 1 --warmup 0 | FileCheck %s --check-prefix=EXEC

// CHECK:      remark: affine-autosched: applied schedule to @distance2: unroll(L0:2)
// CHECK-LABEL: func.func @distance2
// CHECK:        affine.for %[[I:.*]] = 0 to 8 step 2 {
// CHECK-NEXT:     affine.for %[[J:.*]] = 1 to 8 {
// CHECK:            affine.store %{{.*}}, %{{.*}}[%[[I]] + 2, %[[J]] - 1]
// CHECK:            %[[I1:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK:            affine.store %{{.*}}, %{{.*}}[%[[I1]] + 2, %[[J]] - 1]
// CHECK-NEXT:     }
// CHECK-NEXT:   }

// REFUSED4: error: affine-autosched: schedule not applied to @distance2: step 1 (unroll(L0:4)) refused: unroll-and-jam of L0 would reverse a dependence it carries; the IR was left unchanged

// STEP2:      remark: affine-autosched: applied schedule to @step2: unroll(L0:2)
// STEP2-LABEL: func.func @step2
// STEP2:        affine.for %{{.*}} = 0 to 8 step 4 {
// STEP2-NEXT:     affine.for %{{.*}} = 1 to 8 {
// STEP2-COUNT-2:    affine.store
// STEP2-NEXT:     }
// STEP2-NEXT:   }

// REFUSED3: error: affine-autosched: schedule not applied to @step2: step 1 (unroll(L0:3)) refused: unroll-and-jam of L0 would reverse a dependence it carries; the IR was left unchanged

// EXEC: equivalent: all buffers bitwise identical

func.func @distance2(%A: memref<10x8xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to 8 {
    affine.for %j = 1 to 8 {
      %a = affine.load %A[%i, %j] : memref<10x8xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%i + 2, %j - 1] : memref<10x8xf64>
    }
  }
  return
}

func.func @step2(%A: memref<12x8xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to 8 step 2 {
    affine.for %j = 1 to 8 {
      %a = affine.load %A[%i, %j] : memref<12x8xf64>
      %s = arith.addf %a, %one : f64
      affine.store %s, %A[%i + 4, %j - 1] : memref<12x8xf64>
    }
  }
  return
}
