// mvt from PolyBench/C 4.2, LARGE_DATASET: x1 += A * y_1, x2 += A^T * y_2,
// N = 2000, single precision (f32). Only deviation: the integer size parameter n is
// dropped (sizes are static).
func.func @kernel_mvt(%x1: memref<2000xf32>, %x2: memref<2000xf32>, %y_1: memref<2000xf32>,
                      %y_2: memref<2000xf32>, %A: memref<2000x2000xf32>) {
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %xv = affine.load %x1[%i] : memref<2000xf32>
      %a = affine.load %A[%i, %j] : memref<2000x2000xf32>
      %yv = affine.load %y_1[%j] : memref<2000xf32>
      %p = arith.mulf %a, %yv : f32
      %s = arith.addf %xv, %p : f32
      affine.store %s, %x1[%i] : memref<2000xf32>
    }
  }
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %xv = affine.load %x2[%i] : memref<2000xf32>
      %a = affine.load %A[%j, %i] : memref<2000x2000xf32>
      %yv = affine.load %y_2[%j] : memref<2000xf32>
      %p = arith.mulf %a, %yv : f32
      %s = arith.addf %xv, %p : f32
      affine.store %s, %x2[%i] : memref<2000xf32>
    }
  }
  return
}
