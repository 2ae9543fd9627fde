// mlp-relu: a hidden layer with its weights stored inputs-major (W[i][o]), then the bias and a
// ReLU in a second nest: h[b][o] = max(0, bias[o] + sum over i of x[b][i] * W[i][o]), batch
// 128, 1024 inputs, 1024 outputs, single precision. A model-selection kernel.
func.func @kernel_mlp_relu(%h: memref<128x1024xf32>, %x: memref<128x1024xf32>, %W: memref<1024x1024xf32>,
                           %bias: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %b = 0 to 128 {
    affine.for %o = 0 to 1024 {
      affine.store %zero, %h[%b, %o] : memref<128x1024xf32>
      affine.for %i = 0 to 1024 {
        %a = affine.load %x[%b, %i] : memref<128x1024xf32>
        %w = affine.load %W[%i, %o] : memref<1024x1024xf32>
        %acc = affine.load %h[%b, %o] : memref<128x1024xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %acc, %p : f32
        affine.store %s, %h[%b, %o] : memref<128x1024xf32>
      }
    }
  }
  affine.for %b = 0 to 128 {
    affine.for %o = 0 to 1024 {
      %v = affine.load %h[%b, %o] : memref<128x1024xf32>
      %c = affine.load %bias[%o] : memref<1024xf32>
      %s = arith.addf %v, %c : f32
      %r = arith.maximumf %s, %zero : f32
      affine.store %r, %h[%b, %o] : memref<128x1024xf32>
    }
  }
  return
}
