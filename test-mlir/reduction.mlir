// Reductions: a full sum into a rank-0 memref (both loops reduce) and a row sum with an
// integer type (only the inner loop reduces).
// RUN: %autosched describe --tree %s | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{dump-representation=true}))' %s \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK:      @sum: 1 nest(s), 2 loop(s), 1 computation(s), 0 nest(s) not modeled
// CHECK:        B0 = argument 1: memref<f64>
// CHECK:      L0: for d0 in [0, 500)  (500 iterations)  reduction
// CHECK-NEXT:   L0.0: for d1 in [0, 400)  (400 iterations)  reduction
// CHECK-NEXT:     S0: B0[] = f(B0[], B1[d0, d1])  ops: 1 add.f64  reduces over L0, L0.0
// CHECK:      @rowsum_i32: 1 nest(s), 2 loop(s), 1 computation(s), 0 nest(s) not modeled
// CHECK:      L0: for d0 in [0, 64)  (64 iterations){{$}}
// CHECK-NEXT:   L0.0: for d1 in [0, 128)  (128 iterations)  reduction
// CHECK-NEXT:     S0: B0[d0] = f(B0[d0], B1[d0, d1])  ops: 1 add.i32, 1 mul.i32  reduces over L0.0

// A store that does not move with a loop but does not read its location is no reduction.
// CHECK:      @last_column: 1 nest(s)
// CHECK:      L0.0: for d1 in [0, 128)  (128 iterations){{$}}
// CHECK-NEXT:   S0: B0[d0] = f(B1[d0, d1]){{$}}

// REMARK: "name":"S0","parent":1,"iterators":[0,1],"element_type":"f64","store":{"buffer":0,"matrix":[]}
// REMARK-SAME: "reduction_loops":[0,1]

func.func @sum(%A: memref<500x400xf64>, %s: memref<f64>) {
  affine.for %i = 0 to 500 {
    affine.for %j = 0 to 400 {
      %a = affine.load %A[%i, %j] : memref<500x400xf64>
      %acc = affine.load %s[] : memref<f64>
      %r = arith.addf %acc, %a : f64
      affine.store %r, %s[] : memref<f64>
    }
  }
  return
}

func.func @rowsum_i32(%A: memref<64x128xi32>, %out: memref<64xi32>) {
  %c3 = arith.constant 3 : i32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 128 {
      %a = affine.load %A[%i, %j] : memref<64x128xi32>
      %acc = affine.load %out[%i] : memref<64xi32>
      %m = arith.muli %a, %c3 : i32
      %r = arith.addi %acc, %m : i32
      affine.store %r, %out[%i] : memref<64xi32>
    }
  }
  return
}

func.func @last_column(%A: memref<64x128xf32>, %out: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 128 {
      %a = affine.load %A[%i, %j] : memref<64x128xf32>
      affine.store %a, %out[%i] : memref<64xf32>
    }
  }
  return
}
