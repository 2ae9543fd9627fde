// Several sibling nests in one function form one program: buffer ids are shared across
// nests (B0 is written by nest 0 and read by nest 1; B1 is read by nests 0 and 1 and written
// by nest 2), loop and computation ids run on across nests, and each nest records its
// position among the function's operations.
// RUN: %autosched describe --tree %s | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK:      @three_stages: 3 nest(s), 6 loop(s), 3 computation(s), 0 nest(s) not modeled
// CHECK-NEXT:   B0 = memref.alloc at {{.*}}siblings.mlir:[[@LINE+22]]:8: memref<128x128xf32>
// CHECK-NEXT:   B1 = argument 0: memref<128x128xf32>
// CHECK-NEXT:   B2 = argument 1: memref<128x128xf32>
// CHECK-NEXT:   nest 0 at {{.*}}siblings.mlir:[[@LINE+20]]:3
// CHECK:          S0: B0[d0, d1] = f(B1[d0, d1])  ops: 1 mul.f32
// CHECK-NEXT:   nest 1 at {{.*}}siblings.mlir:[[@LINE+25]]:3
// CHECK-NEXT:     L1: for d0 in [0, 128)
// CHECK-NEXT:       L1.0: for d1 in [0, 128)
// CHECK-NEXT:         S1: B2[d0, d1] = f(B0[d0, d1], B1[d1, d0])  ops: 1 add.f32
// CHECK-NEXT:   nest 2 at {{.*}}siblings.mlir:[[@LINE+30]]:3
// CHECK-NEXT:     L2: for d0 in [0, 128)
// CHECK-NEXT:       L2.0: for d1 in [0, 128)
// CHECK-NEXT:         S2: B1[d0, d1] = f(B2[d0, d1])  ops: 1 sub.f32

// REMARK: representation of nest 0 of @three_stages: {"schema_version":1,"function":"three_stages","nest":{"index":0,"position":2,
// REMARK: representation of nest 1 of @three_stages: {"schema_version":1,"function":"three_stages","nest":{"index":1,"position":3,
// REMARK-SAME: "loops":[{"id":2,"name":"L1",
// REMARK: representation of nest 2 of @three_stages: {"schema_version":1,"function":"three_stages","nest":{"index":2,"position":5,
// REMARK-SAME: "computations":[{"id":2,"name":"S2","parent":5,

func.func @three_stages(%A: memref<128x128xf32>, %B: memref<128x128xf32>) {
  %c2 = arith.constant 2.0 : f32
  %T = memref.alloc() : memref<128x128xf32>
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 128 {
      %a = affine.load %A[%i, %j] : memref<128x128xf32>
      %t = arith.mulf %a, %c2 : f32
      affine.store %t, %T[%i, %j] : memref<128x128xf32>
    }
  }
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 128 {
      %t = affine.load %T[%i, %j] : memref<128x128xf32>
      %a = affine.load %A[%j, %i] : memref<128x128xf32>
      %s = arith.addf %t, %a : f32
      affine.store %s, %B[%i, %j] : memref<128x128xf32>
    }
  }
  memref.dealloc %T : memref<128x128xf32>
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 128 {
      %b = affine.load %B[%i, %j] : memref<128x128xf32>
      %d = arith.subf %b, %c2 : f32
      affine.store %d, %A[%i, %j] : memref<128x128xf32>
    }
  }
  return
}
