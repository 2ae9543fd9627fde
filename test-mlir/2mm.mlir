// 2mm (PolyBench): tmp = alpha*A*B; D = beta*D + tmp*C. Two sibling nests form one
// program; the buffer tmp (B0) links them, which is what fusion will need.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %autosched describe --tree %s | FileCheck %s --check-prefix=TREE

// REMARK: remark: affine-autosched: representation of nest 0 of @kernel_2mm:
// REMARK: remark: affine-autosched: representation of nest 1 of @kernel_2mm:
// REMARK-SAME: "nest":{"index":1,"position":2,

// TREE:      @kernel_2mm: 2 nest(s), 6 loop(s), 4 computation(s), 0 nest(s) not modeled
// TREE-NEXT:   B0 = argument 2: memref<180x190xf64>
// TREE:      L0: for d0 in [0, 180)
// TREE-NEXT:   L0.0: for d1 in [0, 190)
// TREE-NEXT:     S0: B0[d0, d1] = f(){{$}}
// TREE-NEXT:     L0.0.0: for d2 in [0, 210)  (210 iterations)  reduction
// TREE-NEXT:       S1: B0[d0, d1] = f(B0[d0, d1], B1[d0, d2], B2[d2, d1])  ops: 1 add.f64, 2 mul.f64  reduces over L0.0.0
// TREE:      L1: for d0 in [0, 180)
// TREE-NEXT:   L1.0: for d1 in [0, 220)
// TREE-NEXT:     S2: B3[d0, d1] = f(B3[d0, d1])  ops: 1 mul.f64
// TREE-NEXT:     L1.0.0: for d2 in [0, 190)  (190 iterations)  reduction
// TREE-NEXT:       S3: B3[d0, d1] = f(B3[d0, d1], B0[d0, d2], B4[d2, d1])  ops: 1 add.f64, 1 mul.f64  reduces over L1.0.0

func.func @kernel_2mm(%alpha: f64, %beta: f64, %tmp: memref<180x190xf64>, %A: memref<180x210xf64>, %B: memref<210x190xf64>, %C: memref<190x220xf64>, %D: memref<180x220xf64>) {
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 180 {
    affine.for %j = 0 to 190 {
      affine.store %zero, %tmp[%i, %j] : memref<180x190xf64>
      affine.for %k = 0 to 210 {
        %a = affine.load %A[%i, %k] : memref<180x210xf64>
        %b = affine.load %B[%k, %j] : memref<210x190xf64>
        %t = affine.load %tmp[%i, %j] : memref<180x190xf64>
        %p = arith.mulf %alpha, %a : f64
        %q = arith.mulf %p, %b : f64
        %s = arith.addf %t, %q : f64
        affine.store %s, %tmp[%i, %j] : memref<180x190xf64>
      }
    }
  }
  affine.for %i = 0 to 180 {
    affine.for %j = 0 to 220 {
      %d = affine.load %D[%i, %j] : memref<180x220xf64>
      %db = arith.mulf %d, %beta : f64
      affine.store %db, %D[%i, %j] : memref<180x220xf64>
      affine.for %k = 0 to 190 {
        %t = affine.load %tmp[%i, %k] : memref<180x190xf64>
        %c = affine.load %C[%k, %j] : memref<190x220xf64>
        %acc = affine.load %D[%i, %j] : memref<180x220xf64>
        %p = arith.mulf %t, %c : f64
        %s = arith.addf %acc, %p : f64
        affine.store %s, %D[%i, %j] : memref<180x220xf64>
      }
    }
  }
  return
}
