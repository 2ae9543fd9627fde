// Fusions that would change the result are refused, and the function is left as it was.
// @war: the first nest reads A[i-1], the second overwrites A[i]; fused, iteration i of the
// first nest would read A[i-1] after iteration i-1 of the second had overwritten it.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false --mlir-print-ir-after-failure \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@war: fuse(L0, L1, 1)"}))' %s > %t.war 2>&1
// RUN: FileCheck %s --check-prefix=WAR < %t.war
// RUN: FileCheck %s --check-prefix=WARIR < %t.war
// @transposed: the consumer reads T[j][i]; fusing over both loops would need T's values
// from later iterations of the producer (a slice that is not one iteration per iteration).
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@transposed: fuse(L0, L1, 2)"}))' %s 2>&1 | FileCheck %s --check-prefix=TRANSPOSED
// Nests of different extents, and a side effect between the nests.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@war: fuse(L1, L2, 1)"}))' %s 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@transposed: fuse(L1, L2, 1)"}))' %s 2>&1 | FileCheck %s --check-prefix=BETWEEN

// WAR: error: affine-autosched: schedule not applied to @war: step 1 (fuse(L0, L1, 1)) refused: MLIR's canFuseLoops could not compute a valid slice of L0 for L1 at depth 1
// WARIR: IR Dump After {{.*}}AffineAutoschedPass Failed
// WARIR-NEXT: func.func @war
// WARIR-NEXT:   affine.for %{{.*}} = 1 to 64 {
// WARIR-NEXT:     affine.load
// WARIR-NEXT:     affine.store
// WARIR-NEXT:   }
// WARIR-NEXT:   affine.for %{{.*}} = 1 to 64 {
// TRANSPOSED: step 1 (fuse(L0, L1, 2)) refused: the fusion slice of L0 is not one iteration per iteration of L1 at depth 1 (it would recompute or skip work)
// BOUNDS: step 1 (fuse(L1, L2, 1)) refused: the loops L1 and L2 at fusion depth 1 do not have the same constant bounds and step
// BETWEEN: step 1 (fuse(L1, L2, 1)) refused: an operation with side effects stands between L1 and L2

func.func @war(%A: memref<64xf32>, %T: memref<64xf32>) {
  affine.for %i = 1 to 64 {
    %a = affine.load %A[%i - 1] : memref<64xf32>
    affine.store %a, %T[%i] : memref<64xf32>
  }
  affine.for %i = 1 to 64 {
    %t = affine.load %T[%i] : memref<64xf32>
    %s = arith.addf %t, %t : f32
    affine.store %s, %A[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 32 {
    %t = affine.load %T[%i] : memref<64xf32>
    affine.store %t, %A[%i] : memref<64xf32>
  }
  return
}

func.func @transposed(%A: memref<16x16xf32>, %T: memref<16x16xf32>, %B: memref<16x16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%i, %j] : memref<16x16xf32>
      affine.store %a, %T[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %t = affine.load %T[%j, %i] : memref<16x16xf32>
      affine.store %t, %B[%i, %j] : memref<16x16xf32>
    }
  }
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  memref.store %x, %B[%c0, %c0] : memref<16x16xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %b = affine.load %B[%i, %j] : memref<16x16xf32>
      affine.store %b, %A[%i, %j] : memref<16x16xf32>
    }
  }
  return
}
