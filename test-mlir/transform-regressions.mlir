// Miscompilations the data generator's execution checks found, now refused.
// 1. Unroll-and-jam of a time loop that holds two sibling sweeps: jamming would run the
//    next step's first sweep before this step's second sweep.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@two_sweeps: unroll(L0:2)"}))' %s 2>&1 | FileCheck %s --check-prefix=JAM
// 2. Vectorizing a loop whose access moves by 2 elements per iteration: the vectorizer
//    would read consecutive elements instead.
// RUN: not mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@strided: vectorize(L0.0:8)"}))' %s 2>&1 | FileCheck %s --check-prefix=STRIDE
// Unit-stride and loop-invariant (broadcast) accesses stay vectorizable.
// RUN: mlir-opt-22 --load-pass-plugin=%plugin --mlir-print-op-on-diagnostic=false \
// RUN:   --pass-pipeline='builtin.module(func.func(affine-autosched{schedule="@unit_stride: vectorize(L0.0:8)"}))' %s 2>&1 | FileCheck %s --check-prefix=OK

// JAM: step 1 (unroll(L0:2)) refused: unroll-and-jam of L0 needs one loop at most in each body below it (L0 holds more than one loop)
// STRIDE: step 1 (vectorize(L0.0:8)) refused: L0.0 is not vectorizable: an access moves by 2 elements per iteration (the vectorizer needs unit stride)
// OK: applied schedule to @unit_stride: vectorize(L0.0:8)

func.func @two_sweeps(%a: memref<34x34xf32>, %b: memref<34x34xf32>) {
  affine.for %t = 0 to 4 {
    affine.for %i = 1 to 33 {
      affine.for %j = 1 to 33 {
        %x = affine.load %a[%i - 1, %j] : memref<34x34xf32>
        %y = affine.load %a[%i + 1, %j] : memref<34x34xf32>
        %s = arith.addf %x, %y : f32
        affine.store %s, %b[%i, %j] : memref<34x34xf32>
      }
    }
    affine.for %i = 1 to 33 {
      affine.for %j = 1 to 33 {
        %x = affine.load %b[%i, %j - 1] : memref<34x34xf32>
        %y = affine.load %b[%i, %j + 1] : memref<34x34xf32>
        %s = arith.mulf %x, %y : f32
        affine.store %s, %a[%i, %j] : memref<34x34xf32>
      }
    }
  }
  return
}

func.func @strided(%a: memref<64x128xf32>, %b: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %x = affine.load %a[%i, %j * 2] : memref<64x128xf32>
      affine.store %x, %b[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

func.func @unit_stride(%a: memref<64x64xf32>, %c: memref<64xf32>, %b: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %x = affine.load %a[%i, %j] : memref<64x64xf32>
      %y = affine.load %c[%i] : memref<64xf32>
      %s = arith.addf %x, %y : f32
      affine.store %s, %b[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
