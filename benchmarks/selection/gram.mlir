// gram: the Gram matrix of 700 rows of 1000 features, both operands read along their rows
// (a "NT" product): G[i][j] = sum over k of X[i][k] * X[j][k], single precision, the whole
// square (syrk computes one triangle). loops i, j, k. A model-selection kernel.
func.func @kernel_gram(%G: memref<700x700xf32>, %X: memref<700x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 700 {
    affine.for %j = 0 to 700 {
      affine.store %zero, %G[%i, %j] : memref<700x700xf32>
      affine.for %k = 0 to 1000 {
        %a = affine.load %X[%i, %k] : memref<700x1000xf32>
        %b = affine.load %X[%j, %k] : memref<700x1000xf32>
        %g = affine.load %G[%i, %j] : memref<700x700xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %g, %p : f32
        affine.store %s, %G[%i, %j] : memref<700x700xf32>
      }
    }
  }
  return
}
