// seidel-2d (PolyBench): an in-place 9-point stencil. The update reads the location it
// writes and does not move with the time loop, so the time loop is a reduction loop.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// REMARK: remark: affine-autosched: representation of nest 0 of @seidel_2d:
// REMARK-SAME: "reduction_loops":[0]

// TREE:      L0: for d0 in [0, 40)  (40 iterations)  reduction
// TREE-NEXT:   L0.0: for d1 in [1, 199)  (198 iterations)
// TREE-NEXT:     L0.0.0: for d2 in [1, 199)  (198 iterations)
// TREE-NEXT:       S0: B0[d1, d2] = f(B0[d1 - 1, d2 - 1], B0[d1 - 1, d2], B0[d1 - 1, d2 + 1], B0[d1, d2 - 1], B0[d1, d2], B0[d1, d2 + 1], B0[d1 + 1, d2 - 1], B0[d1 + 1, d2], B0[d1 + 1, d2 + 1])  ops: 8 add.f64, 1 div.f64  reduces over L0

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
