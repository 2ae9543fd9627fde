// An imperfect nest: computations at three depths, sharing loops, in program order
// (S0 before the inner loop, S2 after it), plus an expression that mixes an induction
// variable (index_cast), a hoisted load and math operations.
// RUN: %autosched describe --tree %s | FileCheck %s
// RUN: %autosched describe --lines %s | FileCheck %s --check-prefix=JSON

// CHECK:      @imperfect: 1 nest(s), 3 loop(s), 4 computation(s), 0 nest(s) not modeled
// CHECK:      L0: for d0 in [0, 100)  (100 iterations)
// CHECK-NEXT:   S0: B0[d0] = f()
// CHECK-NEXT:   L0.0: for d1 in [0, 50)  (50 iterations)  reduction
// CHECK-NEXT:     S1: B1[d0, d1] = f(B2[d1, d0], B3[d0])  ops: 1 add.f32, 1 mul.f32, 1 cast.f32, 1 cast.i32, 1 exp.f32
// CHECK-NEXT:     L0.0.0: for d2 in [0, 10)  (10 iterations)  reduction
// CHECK-NEXT:       S2: B0[d0] = f(B0[d0], B1[d0, d1])  ops: 1 max.f32  reduces over L0.0, L0.0.0
// CHECK-NEXT:   S3: B3[d0] = f(B0[d0])  ops: 1 sqrt.f32

// The children of L0 in program order: S0, then loop L0.0, then S3.
// JSON: "children":[{"computation":0},{"loop":1},{"computation":3}]

func.func @imperfect(%m: memref<100xf32>, %T: memref<100x50xf32>, %v: memref<100xf32>, %W: memref<50x100xf32>) {
  %ninf = arith.constant -1.0e30 : f32
  affine.for %i = 0 to 100 {
    affine.store %ninf, %m[%i] : memref<100xf32>
    %vi = affine.load %v[%i] : memref<100xf32>
    affine.for %j = 0 to 50 {
      %w = affine.load %W[%j, %i] : memref<50x100xf32>
      %ji = arith.index_cast %j : index to i32
      %jf = arith.sitofp %ji : i32 to f32
      %p = arith.mulf %w, %jf : f32
      %s = arith.addf %p, %vi : f32
      %e = math.exp %s : f32
      affine.store %e, %T[%i, %j] : memref<100x50xf32>
      affine.for %k = 0 to 10 {
        %t = affine.load %T[%i, %j] : memref<100x50xf32>
        %cur = affine.load %m[%i] : memref<100xf32>
        %mx = arith.maximumf %cur, %t : f32
        affine.store %mx, %m[%i] : memref<100xf32>
      }
    }
    %mi = affine.load %m[%i] : memref<100xf32>
    %r = math.sqrt %mi : f32
    affine.store %r, %v[%i] : memref<100xf32>
  }
  return
}
