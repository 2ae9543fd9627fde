// batched-gemv: 64 independent matrix-vector products (a batch of small linear maps):
// y[b][i] = sum over j of A[b][i][j] * v[b][j], 512x512 each, single precision.
// loops b, i, j. A model-selection kernel.
func.func @kernel_batched_gemv(%y: memref<64x512xf32>, %A: memref<64x512x512xf32>, %v: memref<64x512xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %b = 0 to 64 {
    affine.for %i = 0 to 512 {
      affine.store %zero, %y[%b, %i] : memref<64x512xf32>
      affine.for %j = 0 to 512 {
        %a = affine.load %A[%b, %i, %j] : memref<64x512x512xf32>
        %x = affine.load %v[%b, %j] : memref<64x512xf32>
        %acc = affine.load %y[%b, %i] : memref<64x512xf32>
        %p = arith.mulf %a, %x : f32
        %s = arith.addf %acc, %p : f32
        affine.store %s, %y[%b, %i] : memref<64x512xf32>
      }
    }
  }
  return
}
