// batched-matmul (not PolyBench): C[b][i][j] += A[b][i][k] * B[b][k][j] with a batch
// of 16 and i = j = k = 256, single precision. C is zeroed inside the kernel in its
// own nest first; loops b, i, j, k in that order.
func.func @kernel_batched_matmul(%C: memref<16x256x256xf32>, %A: memref<16x256x256xf32>,
                                 %B: memref<16x256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %b = 0 to 16 {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        affine.store %zero, %C[%b, %i, %j] : memref<16x256x256xf32>
      }
    }
  }
  affine.for %b = 0 to 16 {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        affine.for %k = 0 to 256 {
          %a = affine.load %A[%b, %i, %k] : memref<16x256x256xf32>
          %x = affine.load %B[%b, %k, %j] : memref<16x256x256xf32>
          %acc = affine.load %C[%b, %i, %j] : memref<16x256x256xf32>
          %p = arith.mulf %a, %x : f32
          %v = arith.addf %acc, %p : f32
          affine.store %v, %C[%b, %i, %j] : memref<16x256x256xf32>
        }
      }
    }
  }
  return
}
