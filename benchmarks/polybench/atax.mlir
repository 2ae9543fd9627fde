// atax from PolyBench/C 4.2, LARGE_DATASET: y = A^T * (A * x), tmp = A * x,
// M = 1900, N = 2100, single precision (f32). Only deviation: the integer size
// parameters m, n are dropped (sizes are static).
func.func @kernel_atax(%A: memref<1900x2100xf32>, %x: memref<2100xf32>, %y: memref<2100xf32>,
                       %tmp: memref<1900xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 2100 {
    affine.store %zero, %y[%i] : memref<2100xf32>
  }
  affine.for %i = 0 to 1900 {
    affine.store %zero, %tmp[%i] : memref<1900xf32>
    affine.for %j = 0 to 2100 {
      %t = affine.load %tmp[%i] : memref<1900xf32>
      %a = affine.load %A[%i, %j] : memref<1900x2100xf32>
      %xv = affine.load %x[%j] : memref<2100xf32>
      %p = arith.mulf %a, %xv : f32
      %s = arith.addf %t, %p : f32
      affine.store %s, %tmp[%i] : memref<1900xf32>
    }
    affine.for %j = 0 to 2100 {
      %yv = affine.load %y[%j] : memref<2100xf32>
      %a = affine.load %A[%i, %j] : memref<1900x2100xf32>
      %t = affine.load %tmp[%i] : memref<1900xf32>
      %p = arith.mulf %a, %t : f32
      %s = arith.addf %yv, %p : f32
      affine.store %s, %y[%j] : memref<2100xf32>
    }
  }
  return
}
