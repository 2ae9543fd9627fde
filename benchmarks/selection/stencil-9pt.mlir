// stencil-9pt: one sweep of a 9-point box filter over a 3000x3000 grid, out of place:
// out[i][j] = w * (sum of in[i+di][j+dj] for di, dj in -1..1), single precision.
// A model-selection kernel.
func.func @kernel_stencil_9pt(%out: memref<3000x3000xf32>, %in: memref<3000x3000xf32>) {
  %w = arith.constant 0.111111 : f32
  affine.for %i = 1 to 2999 {
    affine.for %j = 1 to 2999 {
      %a0 = affine.load %in[%i - 1, %j - 1] : memref<3000x3000xf32>
      %a1 = affine.load %in[%i - 1, %j] : memref<3000x3000xf32>
      %a2 = affine.load %in[%i - 1, %j + 1] : memref<3000x3000xf32>
      %a3 = affine.load %in[%i, %j - 1] : memref<3000x3000xf32>
      %a4 = affine.load %in[%i, %j] : memref<3000x3000xf32>
      %a5 = affine.load %in[%i, %j + 1] : memref<3000x3000xf32>
      %a6 = affine.load %in[%i + 1, %j - 1] : memref<3000x3000xf32>
      %a7 = affine.load %in[%i + 1, %j] : memref<3000x3000xf32>
      %a8 = affine.load %in[%i + 1, %j + 1] : memref<3000x3000xf32>
      %s1 = arith.addf %a0, %a1 : f32
      %s2 = arith.addf %s1, %a2 : f32
      %s3 = arith.addf %s2, %a3 : f32
      %s4 = arith.addf %s3, %a4 : f32
      %s5 = arith.addf %s4, %a5 : f32
      %s6 = arith.addf %s5, %a6 : f32
      %s7 = arith.addf %s6, %a7 : f32
      %s8 = arith.addf %s7, %a8 : f32
      %r = arith.mulf %s8, %w : f32
      affine.store %r, %out[%i, %j] : memref<3000x3000xf32>
    }
  }
  return
}
