// Two nests over disjoint buffers in one function, one of them with symbolic bounds
// (an index argument) and a strided loop; and a nest writing an alloca'd i64 buffer.
// RUN: %autosched describe --tree %s | FileCheck %s
// RUN: %autosched describe --lines --function scale_and_fill %s | FileCheck %s --check-prefix=JSON

// CHECK:      @scale_and_fill: 2 nest(s), 3 loop(s), 2 computation(s), 0 nest(s) not modeled
// CHECK-NEXT:   B0 = argument 0: memref<256x64xf64>
// CHECK-NEXT:   B1 = argument 1: memref<512xf32>
// CHECK:          L0: for d0 in [0, %arg2)
// CHECK-NEXT:       L0.0: for d1 in [0, 64)  (64 iterations)
// CHECK-NEXT:         S0: B0[d0, d1] = f(B0[d0, d1])  ops: 1 mul.f64
// CHECK:          L1: for d0 in [1, 511) step 2  (255 iterations)
// CHECK-NEXT:       S1: B1[d0] = f(B1[d0 - 1], B1[d0 + 1])  ops: 1 add.f32
// CHECK:      @iota_i64: 1 nest(s), 1 loop(s), 1 computation(s)
// CHECK-NEXT:   B0 = memref.alloca at {{.*}}: memref<100xi64>
// CHECK:            S0: B0[d0] = f()  ops: 1 cast.i64

// JSON: "buffers":[{"id":0,"origin":{"argument":0},"shape":[256,64],"element_type":"f64"},{"id":1,"origin":{"argument":1},"shape":[512],"element_type":"f32"}],"symbols":[{"id":0,"argument":2}]
// JSON-SAME: "upper":{"constant":0,"symbols":[{"of":0,"coeff":1}]},"step":1,"trip_count":null

func.func @scale_and_fill(%X: memref<256x64xf64>, %Y: memref<512xf32>, %n: index) {
  %h = arith.constant 0.5 : f64
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 64 {
      %x = affine.load %X[%i, %j] : memref<256x64xf64>
      %s = arith.mulf %x, %h : f64
      affine.store %s, %X[%i, %j] : memref<256x64xf64>
    }
  }
  affine.for %i = 1 to 511 step 2 {
    %l = affine.load %Y[%i - 1] : memref<512xf32>
    %r = affine.load %Y[%i + 1] : memref<512xf32>
    %s = arith.addf %l, %r : f32
    affine.store %s, %Y[%i] : memref<512xf32>
  }
  return
}

func.func @iota_i64() -> i64 {
  %B = memref.alloca() : memref<100xi64>
  affine.for %i = 0 to 100 {
    %v = arith.index_cast %i : index to i64
    affine.store %v, %B[%i] : memref<100xi64>
  }
  %c0 = arith.constant 0 : index
  %r = memref.load %B[%c0] : memref<100xi64>
  return %r : i64
}
