// gemm from PolyBench/C 4.2, LARGE_DATASET: C = alpha*A*B + beta*C,
// NI = 1000, NJ = 1100, NK = 1200, single precision (f32). Only deviation: the integer
// size parameters ni, nj, nk are dropped (sizes are static).
func.func @kernel_gemm(%alpha: f32, %beta: f32, %C: memref<1000x1100xf32>, %A: memref<1000x1200xf32>,
                %B: memref<1200x1100xf32>) {
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 1100 {
      %c = affine.load %C[%i, %j] : memref<1000x1100xf32>
      %cb = arith.mulf %c, %beta : f32
      affine.store %cb, %C[%i, %j] : memref<1000x1100xf32>
    }
    affine.for %k = 0 to 1200 {
      affine.for %j = 0 to 1100 {
        %a = affine.load %A[%i, %k] : memref<1000x1200xf32>
        %b = affine.load %B[%k, %j] : memref<1200x1100xf32>
        %acc = affine.load %C[%i, %j] : memref<1000x1100xf32>
        %p = arith.mulf %alpha, %a : f32
        %q = arith.mulf %p, %b : f32
        %s = arith.addf %acc, %q : f32
        affine.store %s, %C[%i, %j] : memref<1000x1100xf32>
      }
    }
  }
  return
}
