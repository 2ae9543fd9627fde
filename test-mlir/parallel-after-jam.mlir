// A parallelize after unroll-and-jam is decided on the state before the unrolls (the
// jammed body holds k copies of every access) only when the jammed loop carries nothing
// there. Here it does (A[i][j] reads A[i-1][j-1]: the jam is legal, and copies i and i+1
// then meet in one j iteration, so the j loop carries a dependence it did not carry before):
// the whole state decides and refuses it, the IR is left as it was.
// (A jammed loop that carries nothing: test-mlir/transform-parallelize.mlir.)
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="unroll(L0:2); parallelize(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefixes=DIAGONAL,UNCHANGED
// Without the jam, the j loop is parallel.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="parallelize(L0.0)"}))' %s 2>&1 | FileCheck %s --check-prefix=PLAIN

// DIAGONAL: step 2 (parallelize(L0.0)) refused: L0.0 carries a dependence
// UNCHANGED: IR Dump After
// UNCHANGED-NEXT: func.func @diagonal
// UNCHANGED-NEXT: affine.for %{{.*}} = 1 to 64 {
// UNCHANGED-NEXT: affine.for %{{.*}} = 1 to 64 {

// PLAIN-LABEL: func.func @diagonal
// PLAIN: affine.for %{{.*}} = 1 to 64 {
// PLAIN-NEXT: affine.parallel

func.func @diagonal(%A: memref<64x64xf32>) {
  affine.for %i = 1 to 64 {
    affine.for %j = 1 to 64 {
      %a = affine.load %A[%i - 1, %j - 1] : memref<64x64xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
