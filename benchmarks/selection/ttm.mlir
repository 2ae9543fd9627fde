// ttm: a tensor times a matrix along its second mode (Tucker decompositions):
// Y[a][b][c] = sum over d of X[a][d][c] * U[b][d], a = 64, b = 128, c = 96, d = 160, single
// precision. loops a, b, c, d. A model-selection kernel.
func.func @kernel_ttm(%Y: memref<64x128x96xf32>, %X: memref<64x160x96xf32>, %U: memref<128x160xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %a = 0 to 64 {
    affine.for %b = 0 to 128 {
      affine.for %c = 0 to 96 {
        affine.store %zero, %Y[%a, %b, %c] : memref<64x128x96xf32>
        affine.for %d = 0 to 160 {
          %x = affine.load %X[%a, %d, %c] : memref<64x160x96xf32>
          %u = affine.load %U[%b, %d] : memref<128x160xf32>
          %y = affine.load %Y[%a, %b, %c] : memref<64x128x96xf32>
          %p = arith.mulf %x, %u : f32
          %s = arith.addf %y, %p : f32
          affine.store %s, %Y[%a, %b, %c] : memref<64x128x96xf32>
        }
      }
    }
  }
  return
}
