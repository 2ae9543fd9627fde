// interchange: gemm i,j,k -> i,k,j (k moves outward; the accesses follow), applied by the
// pass and by 'autosched apply' with the same result.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="interchange(L0, L0.0.0, L0.0)"}))' %s 2> %t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %autosched apply %s -s "interchange(L0, L0.0.0, L0.0)" 2>/dev/null | FileCheck %s

// REMARK: remark: affine-autosched: applied schedule to @gemm: interchange(L0, L0.0.0, L0.0)
// CHECK-LABEL: func.func @gemm
// CHECK:      affine.for %[[I:.*]] = 0 to 64 {
// CHECK-NEXT:   affine.for %[[K:.*]] = 0 to 32 {
// CHECK-NEXT:     affine.for %[[J:.*]] = 0 to 48 {
// CHECK-NEXT:       affine.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT:       affine.load %{{.*}}[%[[K]], %[[J]]]
// CHECK-NEXT:       affine.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:            affine.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: autosched.loop

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
