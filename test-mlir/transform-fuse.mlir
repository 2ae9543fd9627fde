// fuse: a producer nest (T = 2A) fused into its consumer (B = T + A) over both loops;
// the producer's computation now runs inside the consumer's loops and its nest is gone.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@producer_consumer: fuse(L0, L1, 2)"}))' %s 2>/dev/null | FileCheck %s
// At depth 1 only the row loops merge.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@producer_consumer: fuse(L0, L1, 1)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=DEPTH1

// CHECK:      affine.for %[[I:.*]] = 0 to 64 {
// CHECK-NEXT:   affine.for %[[J:.*]] = 0 to 64 {
// CHECK:          affine.store %{{.*}}, %[[T:.*]][%[[I]], %[[J]]]
// CHECK:          affine.load %[[T]][%[[I]], %[[J]]]
// CHECK:          affine.store
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: return

// DEPTH1:      affine.for %{{.*}} = 0 to 64 {
// DEPTH1-NEXT:   affine.for %{{.*}} = 0 to 64 {
// DEPTH1:        }
// DEPTH1-NEXT:   affine.for %{{.*}} = 0 to 64 {
// DEPTH1:        }
// DEPTH1-NEXT: }
// DEPTH1-NEXT: return

func.func @producer_consumer(%A: memref<64x64xf32>, %T: memref<64x64xf32>, %B: memref<64x64xf32>) {
  %c2 = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<64x64xf32>
      %t = arith.mulf %a, %c2 : f32
      affine.store %t, %T[%i, %j] : memref<64x64xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %t = affine.load %T[%i, %j] : memref<64x64xf32>
      %a = affine.load %A[%i, %j] : memref<64x64xf32>
      %s = arith.addf %t, %a : f32
      affine.store %s, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// A row reduction fused with the normalization that consumes it, over the row loop: the
// slice of the reduction nest is exactly row i, run before the consumer's row i.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@normalize: fuse(L0, L1, 1)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=NORM
// NORM-LABEL: func.func @normalize
// NORM:      affine.for %[[I:.*]] = 0 to 32 {
// NORM:        affine.for %{{.*}} = 0 to 48 {
// NORM:          affine.store %{{.*}}, %{{.*}}[%[[I]]] : memref<32xf32>
// NORM:        }
// NORM-NEXT:   affine.for %{{.*}} = 0 to 48 {
// NORM:          arith.divf
// NORM:        }
// NORM-NEXT: }
// NORM-NEXT: return
func.func @normalize(%A: memref<32x48xf32>, %S: memref<32xf32>, %B: memref<32x48xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 32 {
    affine.store %z, %S[%i] : memref<32xf32>
    affine.for %j = 0 to 48 {
      %a = affine.load %A[%i, %j] : memref<32x48xf32>
      %s = affine.load %S[%i] : memref<32xf32>
      %t = arith.addf %s, %a : f32
      affine.store %t, %S[%i] : memref<32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 48 {
      %a = affine.load %A[%i, %j] : memref<32x48xf32>
      %s = affine.load %S[%i] : memref<32xf32>
      %q = arith.divf %a, %s : f32
      affine.store %q, %B[%i, %j] : memref<32x48xf32>
    }
  }
  return
}
