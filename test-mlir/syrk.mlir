// syrk (PolyBench): C = alpha*A*A^T + beta*C on the lower triangle (j <= i).
// A triangular (non-rectangular) nest: the inner upper bound is affine in i.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// REMARK: remark: affine-autosched: representation of nest 0 of @syrk:
// REMARK-SAME: "name":"L0.0","nest":0,"parent":0,"depth":1,"lower":{"constant":0},"upper":{"constant":1,"loops":[{"of":0,"coeff":1}]},"step":1,"trip_count":null

// TREE:      L0: for d0 in [0, 240)  (240 iterations)
// TREE-NEXT:   L0.0: for d1 in [0, d0 + 1){{$}}
// TREE-NEXT:     S0: B0[d0, d1] = f(B0[d0, d1])  ops: 1 mul.f32
// TREE-NEXT:   L0.1: for d1 in [0, 200)  (200 iterations)  reduction
// TREE-NEXT:     L0.1.0: for d2 in [0, d0 + 1){{$}}
// TREE-NEXT:       S1: B0[d0, d2] = f(B0[d0, d2], B1[d0, d1], B1[d2, d1])  ops: 1 add.f32, 2 mul.f32  reduces over L0.1

func.func @syrk(%alpha: f32, %beta: f32, %C: memref<240x240xf32>, %A: memref<240x200xf32>) {
  affine.for %i = 0 to 240 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %c = affine.load %C[%i, %j] : memref<240x240xf32>
      %cb = arith.mulf %c, %beta : f32
      affine.store %cb, %C[%i, %j] : memref<240x240xf32>
    }
    affine.for %k = 0 to 200 {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        %a1 = affine.load %A[%i, %k] : memref<240x200xf32>
        %a2 = affine.load %A[%j, %k] : memref<240x200xf32>
        %acc = affine.load %C[%i, %j] : memref<240x240xf32>
        %p = arith.mulf %alpha, %a1 : f32
        %q = arith.mulf %p, %a2 : f32
        %s = arith.addf %acc, %q : f32
        affine.store %s, %C[%i, %j] : memref<240x240xf32>
      }
    }
  }
  return
}
