// vectorize: after interchange the j loop is innermost and parallel; 48 iterations are a
// multiple of 8 lanes. A is broadcast along j; B and C are read and written as vectors.
// Every transfer is marked in bounds (it touches what the scalar iterations it replaces
// touched): unmarked, LLVM masks each load and store.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="interchange(L0, L0.0.0, L0.0); vectorize(L0.0:8)"}))' %s 2>/dev/null | FileCheck %s
// The whole showcase recipe on the small gemm: the six steps compose.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="interchange(L0, L0.0.0, L0.0); tile(L0:16, L0.0.0:8, L0.0:16); unroll(L0.0.0:2); parallelize(L0.t); vectorize(L0.0:16)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=ALL

// CHECK:      affine.for %{{.*}} = 0 to 64 {
// CHECK-NEXT:   affine.for %{{.*}} = 0 to 32 {
// CHECK-NEXT:     affine.for %{{.*}} = 0 to 48 step 8 {
// CHECK:            vector.transfer_read {{.*}} {in_bounds = [true], permutation_map = #{{.*}}} : memref<64x32xf32>, vector<8xf32>
// CHECK:            vector.transfer_read {{.*}} {in_bounds = [true]} : memref<32x48xf32>, vector<8xf32>
// CHECK:            arith.mulf {{.*}} : vector<8xf32>
// CHECK:            vector.transfer_write {{.*}} {in_bounds = [true]} : vector<8xf32>, memref<64x48xf32>

// ALL:      affine.parallel
// ALL-COUNT-2: vector.transfer_write {{.*}} : vector<16xf32>, memref<64x48xf32>

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
