// 2mm from PolyBench/C 4.2, LARGE_DATASET: D = alpha*A*B*C + beta*D (tmp = alpha*A*B),
// NI = 800, NJ = 900, NK = 1100, NL = 1200, single precision (f32). Only deviation: the
// integer size parameters ni, nj, nk, nl are dropped (sizes are static).
func.func @kernel_2mm(%alpha: f32, %beta: f32, %tmp: memref<800x900xf32>, %A: memref<800x1100xf32>,
                      %B: memref<1100x900xf32>, %C: memref<900x1200xf32>, %D: memref<800x1200xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 800 {
    affine.for %j = 0 to 900 {
      affine.store %zero, %tmp[%i, %j] : memref<800x900xf32>
      affine.for %k = 0 to 1100 {
        %a = affine.load %A[%i, %k] : memref<800x1100xf32>
        %b = affine.load %B[%k, %j] : memref<1100x900xf32>
        %t = affine.load %tmp[%i, %j] : memref<800x900xf32>
        %p = arith.mulf %alpha, %a : f32
        %q = arith.mulf %p, %b : f32
        %s = arith.addf %t, %q : f32
        affine.store %s, %tmp[%i, %j] : memref<800x900xf32>
      }
    }
  }
  affine.for %i = 0 to 800 {
    affine.for %j = 0 to 1200 {
      %d = affine.load %D[%i, %j] : memref<800x1200xf32>
      %db = arith.mulf %d, %beta : f32
      affine.store %db, %D[%i, %j] : memref<800x1200xf32>
      affine.for %k = 0 to 900 {
        %t = affine.load %tmp[%i, %k] : memref<800x900xf32>
        %c = affine.load %C[%k, %j] : memref<900x1200xf32>
        %acc = affine.load %D[%i, %j] : memref<800x1200xf32>
        %q = arith.mulf %t, %c : f32
        %s = arith.addf %acc, %q : f32
        affine.store %s, %D[%i, %j] : memref<800x1200xf32>
      }
    }
  }
  return
}
