// unroll: the innermost loop by 4 (four copies of the body, step 4); a loop with a loop
// inside by 2 (unroll-and-jam: the copies are jammed into the inner loop).
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="unroll(L0.0.0:4)"}))' %s 2>/dev/null | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="unroll(L0.0:2)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=JAM

// CHECK:      affine.for %{{.*}} = 0 to 48 {
// CHECK-NEXT:   affine.for %[[K:.*]] = 0 to 32 step 4 {
// CHECK-COUNT-4: affine.store
// CHECK-NOT:  affine.store
// CHECK:      return

// JAM:      affine.for %[[J:.*]] = 0 to 48 step 2 {
// JAM-NEXT:   affine.for %{{.*}} = 0 to 32 {
// JAM:          affine.store %{{.*}}, %{{.*}}[%{{.*}}, %[[J]]]
// JAM:          %[[J1:.*]] = affine.apply #{{.*}}(%[[J]])
// JAM:          affine.store %{{.*}}, %{{.*}}[%{{.*}}, %[[J1]]]
// JAM-NEXT:   }
// JAM-NEXT: }

func.func @gemm(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 32 {
        %a = affine.load %A[%i, %k] : memref<64x32xf32>
        %b = affine.load %B[%k, %j] : memref<32x48xf32>
        %c = affine.load %C[%i, %j] : memref<64x48xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<64x48xf32>
      }
    }
  }
  return
}
