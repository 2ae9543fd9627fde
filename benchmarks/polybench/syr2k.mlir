// syr2k from PolyBench/C 4.2, LARGE_DATASET: C = alpha*A*B^T + alpha*B*A^T + beta*C on the
// lower triangle (j <= i), M = 1000, N = 1200 (C is N x N, A and B are N x M), single
// precision (f32). Only deviation: the integer size parameters n, m are dropped (sizes are
// static).
func.func @kernel_syr2k(%alpha: f32, %beta: f32, %C: memref<1200x1200xf32>,
                        %A: memref<1200x1000xf32>, %B: memref<1200x1000xf32>) {
  affine.for %i = 0 to 1200 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %c = affine.load %C[%i, %j] : memref<1200x1200xf32>
      %cb = arith.mulf %c, %beta : f32
      affine.store %cb, %C[%i, %j] : memref<1200x1200xf32>
    }
    affine.for %k = 0 to 1000 {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        %ajk = affine.load %A[%j, %k] : memref<1200x1000xf32>
        %bik = affine.load %B[%i, %k] : memref<1200x1000xf32>
        %bjk = affine.load %B[%j, %k] : memref<1200x1000xf32>
        %aik = affine.load %A[%i, %k] : memref<1200x1000xf32>
        %acc = affine.load %C[%i, %j] : memref<1200x1200xf32>
        %p1 = arith.mulf %ajk, %alpha : f32
        %q1 = arith.mulf %p1, %bik : f32
        %p2 = arith.mulf %bjk, %alpha : f32
        %q2 = arith.mulf %p2, %aik : f32
        %t = arith.addf %q1, %q2 : f32
        %s = arith.addf %acc, %t : f32
        affine.store %s, %C[%i, %j] : memref<1200x1200xf32>
      }
    }
  }
  return
}
