// dense: a fully connected layer as PyTorch's Linear stores it (ResNet-50's classifier), a
// batch of 64, 2048 inputs, 1000 outputs, the weight matrix transposed:
// out[b][o] = bias[o] + sum over i of x[b][i] * W[o][i], single precision. loops b, o, i.
func.func @kernel_dense(%out: memref<64x1000xf32>, %x: memref<64x2048xf32>,
                        %W: memref<1000x2048xf32>, %bias: memref<1000xf32>) {
  affine.for %b = 0 to 64 {
    affine.for %o = 0 to 1000 {
      %b0 = affine.load %bias[%o] : memref<1000xf32>
      affine.store %b0, %out[%b, %o] : memref<64x1000xf32>
      affine.for %i = 0 to 2048 {
        %a = affine.load %x[%b, %i] : memref<64x2048xf32>
        %w = affine.load %W[%o, %i] : memref<1000x2048xf32>
        %acc = affine.load %out[%b, %o] : memref<64x1000xf32>
        %p = arith.mulf %a, %w : f32
        %v = arith.addf %acc, %p : f32
        affine.store %v, %out[%b, %o] : memref<64x1000xf32>
      }
    }
  }
  return
}
