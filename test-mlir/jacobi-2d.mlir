// jacobi-2d (PolyBench): an imperfect nest; the time loop holds two sibling loop nests,
// in order, with neighbour (stencil) accesses.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// REMARK: remark: affine-autosched: representation of nest 0 of @jacobi_2d:
// REMARK-SAME: "children":[{"loop":1},{"loop":3}]
// REMARK-SAME: {"buffer":1,"matrix":{{\[\[}}0,1,0,0],[0,0,1,-1]]}

// TREE:      L0: for d0 in [0, 100)  (100 iterations)
// TREE-NEXT:   L0.0: for d1 in [1, 249)  (248 iterations)
// TREE-NEXT:     L0.0.0: for d2 in [1, 249)  (248 iterations)
// TREE-NEXT:       S0: B0[d1, d2] = f(B1[d1, d2], B1[d1, d2 - 1], B1[d1, d2 + 1], B1[d1 + 1, d2], B1[d1 - 1, d2])  ops: 4 add.f64, 1 mul.f64
// TREE-NEXT:   L0.1: for d1 in [1, 249)  (248 iterations)
// TREE-NEXT:     L0.1.0: for d2 in [1, 249)  (248 iterations)
// TREE-NEXT:       S1: B1[d1, d2] = f(B0[d1, d2], B0[d1, d2 - 1], B0[d1, d2 + 1], B0[d1 + 1, d2], B0[d1 - 1, d2])  ops: 4 add.f64, 1 mul.f64

func.func @jacobi_2d(%A: memref<250x250xf64>, %B: memref<250x250xf64>) {
  %c02 = arith.constant 0.2 : f64
  affine.for %t = 0 to 100 {
    affine.for %i = 1 to 249 {
      affine.for %j = 1 to 249 {
        %c = affine.load %A[%i, %j] : memref<250x250xf64>
        %w = affine.load %A[%i, %j - 1] : memref<250x250xf64>
        %e = affine.load %A[%i, %j + 1] : memref<250x250xf64>
        %s = affine.load %A[%i + 1, %j] : memref<250x250xf64>
        %n = affine.load %A[%i - 1, %j] : memref<250x250xf64>
        %s1 = arith.addf %c, %w : f64
        %s2 = arith.addf %s1, %e : f64
        %s3 = arith.addf %s2, %s : f64
        %s4 = arith.addf %s3, %n : f64
        %r = arith.mulf %c02, %s4 : f64
        affine.store %r, %B[%i, %j] : memref<250x250xf64>
      }
    }
    affine.for %i = 1 to 249 {
      affine.for %j = 1 to 249 {
        %c = affine.load %B[%i, %j] : memref<250x250xf64>
        %w = affine.load %B[%i, %j - 1] : memref<250x250xf64>
        %e = affine.load %B[%i, %j + 1] : memref<250x250xf64>
        %s = affine.load %B[%i + 1, %j] : memref<250x250xf64>
        %n = affine.load %B[%i - 1, %j] : memref<250x250xf64>
        %s1 = arith.addf %c, %w : f64
        %s2 = arith.addf %s1, %e : f64
        %s3 = arith.addf %s2, %s : f64
        %s4 = arith.addf %s3, %n : f64
        %r = arith.mulf %c02, %s4 : f64
        affine.store %r, %A[%i, %j] : memref<250x250xf64>
      }
    }
  }
  return
}
