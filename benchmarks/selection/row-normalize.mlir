// row-normalize: each row of a 2000x2000 matrix divided by its sum (a reduction, then an
// elementwise pass over the same rows): s[i] = sum over j of x[i][j]; y[i][j] = x[i][j] / s[i],
// single precision. A model-selection kernel.
func.func @kernel_row_normalize(%y: memref<2000x2000xf32>, %x: memref<2000x2000xf32>, %s: memref<2000xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 2000 {
    affine.store %one, %s[%i] : memref<2000xf32>
    affine.for %j = 0 to 2000 {
      %a = affine.load %x[%i, %j] : memref<2000x2000xf32>
      %t = affine.load %s[%i] : memref<2000xf32>
      %u = arith.addf %t, %a : f32
      affine.store %u, %s[%i] : memref<2000xf32>
    }
  }
  affine.for %i = 0 to 2000 {
    affine.for %j = 0 to 2000 {
      %a = affine.load %x[%i, %j] : memref<2000x2000xf32>
      %t = affine.load %s[%i] : memref<2000xf32>
      %q = arith.divf %a, %t : f32
      affine.store %q, %y[%i, %j] : memref<2000x2000xf32>
    }
  }
  return
}
