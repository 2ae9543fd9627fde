// parallelize: the i loop of gemm becomes an affine.parallel, which the lowering turns
// into an OpenMP parallel loop.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)"}))' %s 2>/dev/null | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)"}),lower-affine,convert-scf-to-openmp)' %s 2>/dev/null | FileCheck %s --check-prefix=OMP

// CHECK:      affine.parallel (%[[I:.*]]) = (0) to (64) {
// CHECK-NEXT:   affine.for %{{.*}} = 0 to 48 {
// CHECK-NOT:  affine.parallel
// OMP: omp.parallel
// OMP: omp.wsloop

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
