// pointwise-conv: a 1x1 convolution layer (a ResNet-50 bottleneck's expansion), one image,
// 64 input and 256 output channels at 56x56: out[k][h][w] += in[c][h][w] * W[k][c], single
// precision. out is zeroed inside the kernel first; loops k, h, w, c.
func.func @kernel_pointwise_conv(%out: memref<256x56x56xf32>, %in: memref<64x56x56xf32>,
                                 %W: memref<256x64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %k = 0 to 256 {
    affine.for %h = 0 to 56 {
      affine.for %w = 0 to 56 {
        affine.store %zero, %out[%k, %h, %w] : memref<256x56x56xf32>
      }
    }
  }
  affine.for %k = 0 to 256 {
    affine.for %h = 0 to 56 {
      affine.for %w = 0 to 56 {
        affine.for %c = 0 to 64 {
          %x = affine.load %in[%c, %h, %w] : memref<64x56x56xf32>
          %f = affine.load %W[%k, %c] : memref<256x64xf32>
          %acc = affine.load %out[%k, %h, %w] : memref<256x56x56xf32>
          %p = arith.mulf %x, %f : f32
          %v = arith.addf %acc, %p : f32
          affine.store %v, %out[%k, %h, %w] : memref<256x56x56xf32>
        }
      }
    }
  }
  return
}
