// gemm (PolyBench): C = beta*C + alpha*A*B. An imperfect nest: the scaling of C sits
// between the j loop and the reduction loop k.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// REMARK: remark: affine-autosched: representation of nest 0 of @gemm:
// REMARK-SAME: "loops":[{"id":0,"name":"L0","nest":0,"parent":null,"depth":0,"lower":{"constant":0},"upper":{"constant":200},"step":1,"trip_count":200
// REMARK-SAME: "reduction_loops":[2]

// TREE:      @gemm: 1 nest(s), 3 loop(s), 2 computation(s), 0 nest(s) not modeled
// TREE:      L0: for d0 in [0, 200)  (200 iterations)
// TREE-NEXT:   L0.0: for d1 in [0, 220)  (220 iterations)
// TREE-NEXT:     S0: B0[d0, d1] = f(B0[d0, d1])  ops: 1 mul.f32
// TREE-NEXT:     L0.0.0: for d2 in [0, 240)  (240 iterations)  reduction
// TREE-NEXT:       S1: B0[d0, d1] = f(B0[d0, d1], B1[d0, d2], B2[d2, d1])  ops: 1 add.f32, 2 mul.f32  reduces over L0.0.0

func.func @gemm(%alpha: f32, %beta: f32, %C: memref<200x220xf32>, %A: memref<200x240xf32>, %B: memref<240x220xf32>) {
  affine.for %i = 0 to 200 {
    affine.for %j = 0 to 220 {
      %c = affine.load %C[%i, %j] : memref<200x220xf32>
      %cb = arith.mulf %c, %beta : f32
      affine.store %cb, %C[%i, %j] : memref<200x220xf32>
      affine.for %k = 0 to 240 {
        %a = affine.load %A[%i, %k] : memref<200x240xf32>
        %b = affine.load %B[%k, %j] : memref<240x220xf32>
        %acc = affine.load %C[%i, %j] : memref<200x220xf32>
        %p = arith.mulf %alpha, %a : f32
        %q = arith.mulf %p, %b : f32
        %s = arith.addf %acc, %q : f32
        affine.store %s, %C[%i, %j] : memref<200x220xf32>
      }
    }
  }
  return
}
