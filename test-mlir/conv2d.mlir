// A conv2d layer (NCHW, 3x3, stride 1): a 7-deep perfect nest with three reduction loops
// and subscripts that add two induction variables (y + r).
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// REMARK: remark: affine-autosched: representation of nest 0 of @conv2d:
// REMARK-SAME: "loads":[{"buffer":0,"matrix":{{\[\[}}1,0,0,0,0,0,0,0],[0,1,0,0,0,0,0,0],[0,0,1,0,0,0,0,0],[0,0,0,1,0,0,0,0]]},{"buffer":1,"matrix":{{\[\[}}1,0,0,0,0,0,0,0],[0,0,0,0,1,0,0,0],[0,0,1,0,0,1,0,0],[0,0,0,1,0,0,1,0]]},
// REMARK-SAME: "reduction_loops":[4,5,6]

// TREE:      @conv2d: 1 nest(s), 7 loop(s), 1 computation(s), 0 nest(s) not modeled
// TREE:      L0.0.0.0.0.0.0: for d6 in [0, 3)  (3 iterations)  reduction
// TREE-NEXT:   S0: B0[d0, d1, d2, d3] = f(B0[d0, d1, d2, d3], B1[d0, d4, d2 + d5, d3 + d6], B2[d1, d4, d5, d6])  ops: 1 add.f32, 1 mul.f32  reduces over L0.0.0.0.0, L0.0.0.0.0.0, L0.0.0.0.0.0.0

func.func @conv2d(%in: memref<4x16x34x34xf32>, %w: memref<32x16x3x3xf32>, %out: memref<4x32x32x32xf32>) {
  affine.for %n = 0 to 4 {
    affine.for %f = 0 to 32 {
      affine.for %y = 0 to 32 {
        affine.for %x = 0 to 32 {
          affine.for %c = 0 to 16 {
            affine.for %r = 0 to 3 {
              affine.for %s = 0 to 3 {
                %i = affine.load %in[%n, %c, %y + %r, %x + %s] : memref<4x16x34x34xf32>
                %k = affine.load %w[%f, %c, %r, %s] : memref<32x16x3x3xf32>
                %o = affine.load %out[%n, %f, %y, %x] : memref<4x32x32x32xf32>
                %p = arith.mulf %i, %k : f32
                %a = arith.addf %o, %p : f32
                affine.store %a, %out[%n, %f, %y, %x] : memref<4x32x32x32xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}
