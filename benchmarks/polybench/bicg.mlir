// bicg from PolyBench/C 4.2, LARGE_DATASET: s = A^T * r, q = A * p (BiCG sub-kernel),
// M = 1900, N = 2100 (A is N x M), single precision (f32). Only deviation: the integer
// size parameters m, n are dropped (sizes are static).
func.func @kernel_bicg(%A: memref<2100x1900xf32>, %s: memref<1900xf32>, %q: memref<2100xf32>,
                       %p: memref<1900xf32>, %r: memref<2100xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 1900 {
    affine.store %zero, %s[%i] : memref<1900xf32>
  }
  affine.for %i = 0 to 2100 {
    affine.store %zero, %q[%i] : memref<2100xf32>
    affine.for %j = 0 to 1900 {
      %sv = affine.load %s[%j] : memref<1900xf32>
      %rv = affine.load %r[%i] : memref<2100xf32>
      %a = affine.load %A[%i, %j] : memref<2100x1900xf32>
      %p1 = arith.mulf %rv, %a : f32
      %s1 = arith.addf %sv, %p1 : f32
      affine.store %s1, %s[%j] : memref<1900xf32>
      %qv = affine.load %q[%i] : memref<2100xf32>
      %a2 = affine.load %A[%i, %j] : memref<2100x1900xf32>
      %pv = affine.load %p[%j] : memref<1900xf32>
      %p2 = arith.mulf %a2, %pv : f32
      %s2 = arith.addf %qv, %p2 : f32
      affine.store %s2, %q[%i] : memref<2100xf32>
    }
  }
  return
}
