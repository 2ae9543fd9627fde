// 3mm from PolyBench/C 4.2, LARGE_DATASET: E = A*B, F = C*D, G = E*F,
// NI = 800, NJ = 900, NK = 1000, NL = 1100, NM = 1200, single precision (f32). Only
// deviation: the integer size parameters ni, nj, nk, nl, nm are dropped (sizes are static).
func.func @kernel_3mm(%E: memref<800x900xf32>, %A: memref<800x1000xf32>, %B: memref<1000x900xf32>,
                      %F: memref<900x1100xf32>, %C: memref<900x1200xf32>, %D: memref<1200x1100xf32>,
                      %G: memref<800x1100xf32>) {
  %zero = arith.constant 0.0 : f32
  // E := A*B
  affine.for %i = 0 to 800 {
    affine.for %j = 0 to 900 {
      affine.store %zero, %E[%i, %j] : memref<800x900xf32>
      affine.for %k = 0 to 1000 {
        %a = affine.load %A[%i, %k] : memref<800x1000xf32>
        %b = affine.load %B[%k, %j] : memref<1000x900xf32>
        %e = affine.load %E[%i, %j] : memref<800x900xf32>
        %q = arith.mulf %a, %b : f32
        %s = arith.addf %e, %q : f32
        affine.store %s, %E[%i, %j] : memref<800x900xf32>
      }
    }
  }
  // F := C*D
  affine.for %i = 0 to 900 {
    affine.for %j = 0 to 1100 {
      affine.store %zero, %F[%i, %j] : memref<900x1100xf32>
      affine.for %k = 0 to 1200 {
        %c = affine.load %C[%i, %k] : memref<900x1200xf32>
        %d = affine.load %D[%k, %j] : memref<1200x1100xf32>
        %f = affine.load %F[%i, %j] : memref<900x1100xf32>
        %q = arith.mulf %c, %d : f32
        %s = arith.addf %f, %q : f32
        affine.store %s, %F[%i, %j] : memref<900x1100xf32>
      }
    }
  }
  // G := E*F
  affine.for %i = 0 to 800 {
    affine.for %j = 0 to 1100 {
      affine.store %zero, %G[%i, %j] : memref<800x1100xf32>
      affine.for %k = 0 to 900 {
        %e = affine.load %E[%i, %k] : memref<800x900xf32>
        %f = affine.load %F[%k, %j] : memref<900x1100xf32>
        %g = affine.load %G[%i, %j] : memref<800x1100xf32>
        %q = arith.mulf %e, %f : f32
        %s = arith.addf %g, %q : f32
        affine.store %s, %G[%i, %j] : memref<800x1100xf32>
      }
    }
  }
  return
}
