// parallelize: the i loop of gemm becomes an affine.parallel, which the lowering turns
// into an OpenMP parallel loop.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)"}))' %s 2>/dev/null | FileCheck %s
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0)"}),lower-affine,convert-scf-to-openmp)' %s 2>/dev/null | FileCheck %s --check-prefix=OMP
// After a register tile (4x8 around the accumulating k loop): i and j carry nothing before
// the jams, so the j loop inside the jammed i loop is parallel (decided on the state before
// the unrolls, test-mlir/parallel-after-jam.mlir), and so is i itself.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:8); parallelize(L0.0)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=INNER
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="accumulate(L0.0.0); unroll(L0:4); unroll(L0.0:8); parallelize(L0)"}))' %s 2>/dev/null | FileCheck %s --check-prefix=OUTER

// INNER: affine.for %{{.*}} = 0 to 64 step 4 {
// INNER-NEXT: affine.parallel (%{{.*}}) = (0) to (48) step (8) {
// OUTER: affine.parallel (%{{.*}}) = (0) to (64) step (4) {
// OUTER-NEXT: affine.for %{{.*}} = 0 to 48 step 8 {

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
