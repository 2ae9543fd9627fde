// trmm from PolyBench/C 4.2, LARGE_DATASET: B = alpha * A^T * B with A unit lower
// triangular (the diagonal is implicitly 1), M = 1000, N = 1200 (A is M x M, B is M x N),
// single precision (f32). Only deviation: the integer size parameters m, n are dropped
// (sizes are static).
func.func @kernel_trmm(%alpha: f32, %A: memref<1000x1000xf32>, %B: memref<1000x1200xf32>) {
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 1200 {
      affine.for %k = affine_map<(d0) -> (d0 + 1)>(%i) to 1000 {
        %aki = affine.load %A[%k, %i] : memref<1000x1000xf32>
        %bkj = affine.load %B[%k, %j] : memref<1000x1200xf32>
        %acc = affine.load %B[%i, %j] : memref<1000x1200xf32>
        %q = arith.mulf %aki, %bkj : f32
        %s = arith.addf %acc, %q : f32
        affine.store %s, %B[%i, %j] : memref<1000x1200xf32>
      }
      %b = affine.load %B[%i, %j] : memref<1000x1200xf32>
      %ab = arith.mulf %alpha, %b : f32
      affine.store %ab, %B[%i, %j] : memref<1000x1200xf32>
    }
  }
  return
}
